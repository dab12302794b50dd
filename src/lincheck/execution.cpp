// The executor: a scenario as one controlled iteration, the strategies that
// record its decisions in scenario terms or follow recorded ones, and the
// judgement of a run (the verifier on its history, or heddle's own bug).
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
#include "strategies/rng.hpp"

namespace heddle::lincheck::detail {
namespace {

using heddle::detail::decision_context;
using heddle::detail::strategy;

// Records every decision `inner` takes, and where a thread was switched out.
class recording_strategy final : public strategy {
 public:
  recording_strategy(strategy& inner, executor& exec) : inner_(inner), exec_(exec) {}
  void begin_iteration(std::uint64_t index, std::uint64_t seed) override { inner_.begin_iteration(index, seed); }
  void end_iteration(const heddle::detail::iteration_summary& s) override { inner_.end_iteration(s); }
  std::string describe() const override { return inner_.describe(); }
  bool is_fair() const override { return inner_.is_fair(); }
  bool exhausted() const override { return inner_.exhausted(); }
  std::string stop_reason() const override { return inner_.stop_reason(); }

  std::size_t next_operation(const decision_context& ctx) override {
    const std::size_t chosen = inner_.next_operation(ctx);
    if (chosen >= ctx.enabled.size()) return chosen;
    const operation_id op = ctx.enabled[chosen].id;
    const std::size_t thread = exec_.thread_of(op);
    run_record& r = exec_.record();
    r.schedule.push_back({false, thread, exec_.position(thread), 0});
    if (run_observer* o = exec_.observer())
      o->decided({step_kind::schedule, ctx.enabled[chosen].point, ctx.enabled[chosen].object, op}, r.schedule.back());
    if (auto* e = heddle::detail::engine::current(); e != nullptr && ctx.enabled[chosen].object != 0) {
      const object_kind kind = e->object(ctx.enabled[chosen].object).kind;
      if (kind == object_kind::atomic) ++r.atomic_steps;
      else if (kind == object_kind::variable) ++r.memory_steps;
    }
    const std::size_t current = exec_.thread_of(ctx.current);
    if (op != ctx.current && current != no_thread && exec_.in_call(current)) {
      std::string where = "blocked";
      for (const auto& p : ctx.enabled)
        if (p.id == ctx.current) {
          const auto* e = heddle::detail::engine::current();
          where = fmt::format("switched out before {}{}", to_string(p.point),
                              p.object != 0 && e != nullptr ? " on " + e->describe_object(p.object) : "");
        }
      r.events.push_back({interleaving_event::kind::switched, current, 0, std::move(where)});
    }
    return chosen;
  }

  std::uint64_t next_value(const decision_context& ctx, const heddle::detail::choice& c) override {
    const std::uint64_t value = inner_.next_value(ctx, c);
    if (value < c.bound) {
      const std::size_t thread = exec_.thread_of(ctx.current);
      run_record& r = exec_.record();
      r.schedule.push_back({true, thread, exec_.position(thread), value});
      if (run_observer* o = exec_.observer()) o->decided({c.kind, c.point, c.object, value}, r.schedule.back());
    }
    return value;
  }

 private:
  strategy& inner_;
  executor& exec_;
};

// Follows a recorded schedule in scenario terms: at each decision, the first
// recorded entry not yet used whose thread is enabled in the same call runs.
// Entries of removed calls never match and are passed over, so the other
// threads keep their recorded order; with no entry left, the lowest operation
// id runs.
class guided_strategy final : public strategy {
 public:
  guided_strategy(const std::vector<schedule_entry>& schedule, const executor& exec)
      : entries_(schedule), used_(schedule.size(), false), exec_(exec) {}
  void begin_iteration(std::uint64_t, std::uint64_t) override {}
  void end_iteration(const heddle::detail::iteration_summary&) override {}
  std::string describe() const override { return "guided"; }

  std::size_t next_operation(const decision_context& ctx) override {
    for (std::size_t e = first_unused_; e < entries_.size(); ++e) {
      if (used_[e] || entries_[e].data) continue;
      for (std::size_t i = 0; i < ctx.enabled.size(); ++i) {
        const std::size_t thread = exec_.thread_of(ctx.enabled[i].id);
        if (thread == entries_[e].thread && exec_.position(thread) == entries_[e].actor) {
          use(e);
          return i;
        }
      }
    }
    return 0;
  }

  std::uint64_t next_value(const decision_context& ctx, const heddle::detail::choice& c) override {
    const std::size_t thread = exec_.thread_of(ctx.current);
    for (std::size_t e = first_unused_; e < entries_.size(); ++e) {
      if (used_[e] || !entries_[e].data) continue;
      if (entries_[e].thread == thread && entries_[e].actor == exec_.position(thread) && entries_[e].value < c.bound) {
        use(e);
        return entries_[e].value;
      }
    }
    return 0;
  }

 private:
  void use(std::size_t e) {
    used_[e] = true;
    while (first_unused_ < used_.size() && used_[first_unused_]) ++first_unused_;
  }
  const std::vector<schedule_entry>& entries_;
  std::vector<bool> used_;
  std::size_t first_unused_ = 0;
  const executor& exec_;
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
  ++runs_started_;
  record_.calls.clear();
  record_.events.clear();
  record_.schedule.clear();
  record_.atomic_steps = 0;
  record_.memory_steps = 0;
  clock_ = 0;
  thread_of_.assign(2, no_thread);
  thread_of_[1] = 0;
  position_.assign(sc.threads.size() + 1, no_actor);
  in_call_.assign(sc.threads.size() + 1, false);
  if (observer_ != nullptr) observer_->begin_run();
}

const run_record& executor::run_here(const scenario& sc) {
  begin(sc);
  body(sc);
  return record_;
}

const run_record& executor::run(const scenario& sc, strategy& chooser) {
  begin(sc);
  recording_strategy recorder(chooser, *this);
  running_ = &sc;
  const heddle::detail::iteration_outcome& outcome = engine_.run(recorder, [this, &sc] { body(sc); });
  running_ = nullptr;
  record_.trace.clear();  // reused: no allocation once it has grown
  for (const heddle::detail::step_record& step : outcome.steps) record_.trace.push_back(step.step);
  record_.found = outcome.found;
  record_.hit_max_steps = outcome.hit_max_steps;
  record_.stopped = outcome.stopped.has_value();
  record_.steps = outcome.steps.size();
  return record_;
}

std::optional<judgement> executor::explore(const scenario& sc, std::uint64_t seed, result& totals) {
  std::unique_ptr<strategy> chosen = heddle::detail::make_strategy(opts_.strategy);
  for (std::uint64_t i = 0; i < opts_.iterations; ++i) {
    chosen->begin_iteration(i, heddle::detail::iteration_seed(seed, i));
    const run_record& r = run(sc, *chosen);
    chosen->end_iteration({r.steps, r.found.has_value(), r.hit_max_steps});
    ++totals.runs;
    totals.steps += r.steps;
    totals.atomic_steps += r.atomic_steps;
    totals.memory_steps += r.memory_steps;
    if (r.stopped || (r.hit_max_steps && !r.found)) {
      ++totals.skipped_runs;
    } else if (std::optional<judgement> j = judge(r)) {
      return j;
    }
    if (chosen->exhausted() || !chosen->search_error().empty()) break;
  }
  return std::nullopt;
}

std::optional<judgement> executor::follow(const scenario& sc, const std::vector<schedule_entry>& schedule) {
  guided_strategy guide(schedule, *this);
  const run_record& r = run(sc, guide);
  if (r.stopped || (r.hit_max_steps && !r.found)) return std::nullopt;
  return judge(r);
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

// What one explore_body() keeps across iterations: the declaration and an
// executor for its histories (its own engine stays idle).
struct explored {
  explicit explored(const declaration& given) : d(given), exec(d.erased, d.opts) {}
  declaration d;
  executor exec;
};

heddle::detail::deadlock_verdict judge_deadlock(void* context, const std::string& described) {
  executor& exec = static_cast<explored*>(context)->exec;
  const std::optional<judgement> j = exec.judge_calls(exec.record().calls, &described);
  if (!j) return {.quiet = true};
  if (j->bug) return {.kind = *j->bug, .message = j->message};
  return {.kind = bug_kind::assertion, .message = j->kind + ": " + j->message};
}

}  // namespace

std::function<void()> explore_body(const declaration& d) {
  auto state = std::make_shared<explored>(d);
  return [state] {
    const lincheck::options& o = state->d.opts;
    const std::uint64_t s = heddle::choose_int(o.scenarios);
    random_source r(heddle::detail::iteration_seed(o.seed, s));
    const scenario sc = generate_scenario(state->d.erased, o, r);
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

}  // namespace heddle::lincheck::detail
