// The executor: a scenario as one controlled iteration (the runner's body, or
// a run of its own for a report, whose strategy notes where threads were
// switched out), the judgement of a run (the verifier on its history, or
// heddle's own bug), and how the runner's minimizer shrinks a scenario.
//
// Layout of an iteration: operation 1 builds a fresh object, makes the init
// calls, spawns one operation per thread of the parallel part ("T1", "T2"...),
// joins them, and makes the post calls. Each thread announces a yield point
// before each call, so schedules differ in where calls start as well as in
// what happens inside them. Logical times are a counter bumped just before a
// call and just after it returns; only one operation runs at a time, so their
// order is the real-time order.
#include "lincheck/execution.hpp"

#include <fmt/format.h>

#include "engine/deadlock_judge.hpp"
#include "heddle/explore.hpp"
#include "lincheck/scenario.hpp"

namespace heddle::lincheck::detail {
namespace {

using heddle::detail::decision_context;
using heddle::detail::strategy;

// Passes every decision to `inner`, and notes where a thread was switched out
// in the middle of a call.
class recording_strategy final : public strategy {
 public:
  recording_strategy(strategy& inner, executor& exec) : inner_(inner), exec_(exec) {}
  void begin_iteration(std::uint64_t index, std::uint64_t seed) override { inner_.begin_iteration(index, seed); }
  void end_iteration(const heddle::detail::iteration_summary& s) override { inner_.end_iteration(s); }
  std::string describe() const override { return inner_.describe(); }
  std::string stop_reason() const override { return inner_.stop_reason(); }

  std::size_t next_operation(const decision_context& ctx) override {
    const std::size_t chosen = inner_.next_operation(ctx);
    if (chosen >= ctx.enabled.size()) return chosen;
    const operation_id op = ctx.enabled[chosen].id;
    const std::size_t current = exec_.thread_of(ctx.current);
    if (op != ctx.current && current != no_thread && exec_.in_call(current)) {
      std::string where = "blocked";
      for (const auto& p : ctx.enabled)
        if (p.id == ctx.current) {
          const auto* e = heddle::detail::engine::current();
          where = fmt::format("switched out before {}{}", to_string(p.point),
                              p.object != 0 && e != nullptr ? " on " + e->describe_object(p.object) : "");
        }
      exec_.record().events.push_back({interleaving_event::kind::switched, current, 0, std::move(where)});
    }
    return chosen;
  }

  std::uint64_t next_value(const decision_context& ctx, const heddle::detail::choice& c) override {
    return inner_.next_value(ctx, c);
  }

 private:
  strategy& inner_;
  executor& exec_;
};

}  // namespace

executor::executor(const erased_spec& spec, const lincheck::options& opts)
    : spec_(spec),
      opts_(opts),
      fibers_(256 * 1024),
      engine_(fibers_, {opts.max_steps, opts.fail_on_max_steps, true, true, opts.memory, opts.detect_races}) {
  for (const operation_decl& d : spec.ops) names_.push_back(d.name);
}

void executor::invoke(object_instance& object, const actor& a, std::size_t thread, part where) {
  position_[thread] = a.id;
  const std::size_t index = record_.calls.size();
  call_record c;
  c.op = a.op;
  c.args = a.args;
  c.thread = thread;
  c.part = where;
  c.invoked = ++clock_;
  record_.calls.push_back(std::move(c));
  record_.events.push_back({interleaving_event::kind::invoke, thread, index, {}});
  in_call_[thread] = true;
  std::shared_ptr<const observed> result = object.call(a.op, *a.args);
  in_call_[thread] = false;
  record_.calls[index].result = std::move(result);
  record_.calls[index].responded = ++clock_;
  record_.events.push_back({interleaving_event::kind::respond, thread, index, {}});
}

void executor::body(const scenario& sc) {
  std::unique_ptr<object_instance> object = spec_.make_object();
  for (const actor& a : sc.init) invoke(*object, a, 0, part::init);
  position_[0] = no_actor;
  std::vector<operation_id> ids;
  for (std::size_t t = 0; t < sc.threads.size(); ++t) {
    const operation_id id = heddle::spawn(
        [this, &sc, &object, t] {
          for (const actor& a : sc.threads[t]) {
            position_[t + 1] = a.id;
            heddle::scheduling_point(point_kind::yield);
            invoke(*object, a, t + 1, part::parallel);
          }
          position_[t + 1] = no_actor;
        },
        fmt::format("T{}", t + 1));
    if (id >= thread_of_.size()) thread_of_.resize(id + 1, no_thread);
    thread_of_[id] = t + 1;
    ids.push_back(id);
  }
  for (operation_id id : ids) heddle::join(id);
  for (const actor& a : sc.post) invoke(*object, a, 0, part::post);
  position_[0] = no_actor;  // what follows (the object's destructor) is in no call
}

void executor::begin(const scenario& sc) {
  record_.calls.clear();
  record_.events.clear();
  clock_ = 0;
  thread_of_.assign(2, no_thread);
  thread_of_[1] = 0;
  position_.assign(sc.threads.size() + 1, no_actor);
  in_call_.assign(sc.threads.size() + 1, false);
}

const run_record& executor::run_here(const scenario& sc) {
  begin(sc);
  body(sc);
  return record_;
}

const run_record& executor::run(const scenario& sc, strategy& chooser) {
  begin(sc);
  recording_strategy recorder(chooser, *this);
  const heddle::detail::iteration_outcome& outcome = engine_.run(recorder, [this, &sc] {
    (void)heddle::choose_int(opts_.scenarios);  // explore_body()'s choice of scenario
    body(sc);
  });
  record_.found = outcome.found;
  record_.steps = outcome.steps.size();
  return record_;
}

std::optional<judgement> executor::judge(const run_record& r) const {
  if (r.found && r.found->kind != bug_kind::deadlock)
    return judgement{std::string(to_string(r.found->kind)), r.found->kind, r.found->message};
  return judge_calls(r.calls, r.found ? &r.found->message : nullptr);
}

std::optional<judgement> executor::judge_calls(const history& calls, const std::string* deadlock) const {
  const auto model = spec_.make_model();
  const std::string kind = opts_.consistency == consistency::linearizable ? "non-linearizable"
                           : opts_.consistency == consistency::sequentially_consistent
                               ? "not sequentially consistent"
                               : "not quiescently consistent";
  if (deadlock != nullptr) {
    // A deadlock is legitimate when the calls that never returned are blocked
    // in the model too (a pop on an empty queue that nobody fills).
    const verdict blocked = verify(names_, *model, calls, opts_.consistency, true);
    if (blocked.ok) return std::nullopt;
    const verdict any = verify(names_, *model, calls, opts_.consistency, false);
    if (!any.ok) return judgement{kind, std::nullopt, any.explanation};
    return judgement{"deadlock", bug_kind::deadlock,
                     fmt::format("{}; the model would not block here: {}", *deadlock, blocked.explanation)};
  }
  const verdict v = verify(names_, *model, calls, opts_.consistency, false);
  if (v.ok) return std::nullopt;
  return judgement{kind, std::nullopt, v.explanation};
}

namespace {

// What one explore_body() keeps across iterations: the declaration, the
// scenario it was given, if any, and an executor for its histories (its own
// engine stays idle).
struct explored {
  explored(const declaration& given, std::optional<scenario> only)
      : d(given), exec(d.erased, d.opts), fixed(std::move(only)) {}
  declaration d;
  executor exec;
  std::optional<scenario> fixed;
};

heddle::detail::deadlock_verdict judge_deadlock(void* context, const std::string& described) {
  executor& exec = static_cast<explored*>(context)->exec;
  const std::optional<judgement> j = exec.judge_calls(exec.record().calls, &described);
  if (!j) return {.quiet = true};
  if (j->bug) return {.kind = *j->bug, .message = j->message};
  return {.kind = bug_kind::assertion, .message = j->kind + ": " + j->message};
}

// The failure's kind as the report names it: the verifier's condition for a
// judged history ("non-linearizable: ..."), the signal for a crash.
std::string failure_class(const bug& b) {
  if (b.kind == bug_kind::assertion) return b.message.substr(0, b.message.find(':'));
  if (b.kind == bug_kind::crash) return b.message.substr(0, b.message.find(" in operation"));
  return {};
}

}  // namespace

std::function<void()> explore_body(const declaration& d, std::optional<scenario> given) {
  auto state = std::make_shared<explored>(d, std::move(given));
  return [state] {
    const lincheck::options& o = state->d.opts;
    const std::uint64_t s = heddle::choose_int(o.scenarios);
    const std::vector<std::string>& input = heddle::detail::iteration_arguments();
    const scenario sc = state->fixed ? *state->fixed
                        : input.empty() ? generate_scenario(state->d, o.seed, s)
                                        : scenario_of(state->d, o.seed, input, "the iteration's input").sc;
    const heddle::detail::engine* e = heddle::detail::engine::current();
    heddle::detail::set_deadlock_judge(e, &judge_deadlock, state.get());
    struct clear_judge {  // also when the iteration unwinds this body
      const heddle::detail::engine* e;
      ~clear_judge() { heddle::detail::set_deadlock_judge(e, nullptr, nullptr); }
    } clear{e};
    const run_record& run = state->exec.run_here(sc);
    if (const std::optional<judgement> j = state->exec.judge_calls(run.calls, nullptr))
      heddle::assertion_failed(j->kind + ": " + j->message);
  };
}

heddle::detail::input_reduction scenario_reduction(const declaration& d) {
  heddle::detail::input_reduction r;
  r.candidates = [d](const trace& best) {
    const kept_scenario k = scenario_of(d, best, "the minimized trace");
    std::vector<std::vector<std::string>> out;
    for (scenario& smaller : removals(k.sc))
      out.push_back(input_of({k.index, std::move(smaller), k.reductions, k.reductions_on_schedule}));
    return out;
  };
  // The same kind of failure: Lincheck's and QuickCheck's rule. Heddle's own
  // bugs (a data race, API misuse) keep the runner's, which names the place.
  r.same = [](const bug& found, const bug& original) {
    if (found.kind != original.kind) return false;
    if (found.kind == bug_kind::deadlock || found.kind == bug_kind::stack_overflow) return true;
    if (found.kind == bug_kind::assertion || found.kind == bug_kind::crash)
      return failure_class(found) == failure_class(original);
    return heddle::detail::same_bug(found, original);
  };
  r.accepted = [d](std::vector<std::string>& kept, bool on_schedule) {
    kept_scenario k = scenario_of(d, d.opts.seed, kept, "a minimization candidate");
    ++k.reductions;
    if (on_schedule) ++k.reductions_on_schedule;
    kept = input_of(k);
  };
  r.fresh_schedules = d.opts.iterations;
  return r;
}

}  // namespace heddle::lincheck::detail
