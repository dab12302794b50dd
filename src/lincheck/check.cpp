// check(): validates a declaration and has the runner (src/runner) search
// its scenarios; the first failure the runner found and minimized (calls and
// schedule together, runner/minimize.hpp) is rebuilt here as lincheck's
// report: the scenario, the interleaving, why. A crash is rebuilt in a child
// process, which follows the crashing run up to its last decision.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <set>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heddle/explore.hpp"
#include "lincheck/scenario.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/step_log.hpp"
#include "runner/test_registry.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::lincheck {
namespace {

// `unnamed_ok`: the RapidCheck front end has one operation, printed as its command.
void validate(const declaration& d, bool unnamed_ok = false) {
  const detail::erased_spec& s = d.erased;
  const options& o = d.opts;
  auto fail = [](std::string message) { throw declaration_error("heddle lincheck: " + message); };
  if (!s.problems.empty()) fail(s.problems.front());
  if (s.ops.empty()) fail("no operations declared: add at least one with .op(name, &Object::f, &Model::f, generators...)");
  std::set<std::string> names;
  for (const detail::operation_decl& op : s.ops) {
    if (op.name.empty() && !unnamed_ok) fail("an operation has an empty name");
    if (!names.insert(op.name).second)
      fail(fmt::format("two operations are named '{}': give each a distinct name", op.name));
  }
  if (o.threads == 0) fail("threads(0): the parallel part needs at least one thread");
  if (o.ops_per_thread == 0) fail("ops_per_thread(0): each thread needs at least one call");
  if (o.scenarios == 0) fail("scenarios(0): nothing would run");
  if (o.iterations == 0) fail("iterations(0): each scenario needs at least one run");
  const std::size_t calls = o.init_ops + o.threads * o.ops_per_thread + o.post_ops;
  if (calls > 64)
    fail(fmt::format("a scenario of {} calls ({} init + {} threads x {} + {} post) is more than the verifier's 64",
                     calls, o.init_ops, o.threads, o.ops_per_thread, o.post_ops));
  try {
    (void)heddle::detail::make_strategy(o.strategy);
  } catch (const usage_error& e) {
    fail(e.what());
  }
  if (in_control()) fail("check() runs its own controlled executions: call it from a test, not inside heddle::explore");
}


// The judgement a bug of the runner stands for: the verifier's
// ("non-linearizable: why" as an assertion), or heddle's own.
detail::judgement judgement_of(const bug& b) {
  if (b.kind == bug_kind::assertion)
    if (const std::size_t colon = b.message.find(": "); colon != std::string::npos)
      return {b.message.substr(0, colon), std::nullopt, b.message.substr(colon + 2)};
  return {std::string(to_string(b.kind)), b.kind, b.message};
}

std::string thread_name(std::size_t thread) { return thread == 0 ? "init/post" : fmt::format("T{}", thread); }

// Follows a crashing run's decisions up to its last schedule decision, and
// there, before the code that crashed runs, writes the report to `fd` and
// ends the process: the run is never unwound (a destructor may crash too).
class crash_reporter final : public heddle::detail::strategy {
 public:
  crash_reporter(const std::vector<trace_step>& steps, detail::executor& exec, detail::failing_run& f,
                 const bug& crash, std::function<std::string()> report, int fd)
      : replaying_(prefix(steps)), exec_(exec), f_(f), crash_(crash), report_(std::move(report)), fd_(fd) {}
  void begin_iteration(std::uint64_t index, std::uint64_t seed) override { replaying_.begin_iteration(index, seed); }
  void end_iteration(const heddle::detail::iteration_summary&) override {}
  std::string describe() const override { return "replay"; }
  std::size_t next_operation(const heddle::detail::decision_context& ctx) override {
    if (replaying_.remaining() == 0) finish();
    return replaying_.next_operation(ctx);
  }
  std::uint64_t next_value(const heddle::detail::decision_context& ctx, const heddle::detail::choice& c) override {
    if (replaying_.remaining() == 0) finish();
    return replaying_.next_value(ctx, c);
  }

  // Where the run crashed, as a row in the crashing thread's column. The
  // call that crashed had not returned; if it had not even started at the
  // last decision (it crashed at its very beginning), it is added first.
  [[noreturn]] void finish() {
    using detail::interleaving_event;
    f_.run = exec_.record();
    const std::size_t thread = exec_.thread_of(crash_.operation);
    const std::size_t call = thread == detail::no_thread ? detail::no_actor : exec_.position(thread);
    const actor* a = nullptr;
    for (const auto* part : {&f_.sc.init, &f_.sc.post})
      for (const actor& x : *part) a = x.id == call ? &x : a;
    for (const auto& t : f_.sc.threads)
      for (const actor& x : t) a = x.id == call ? &x : a;
    const std::string signal = crash_.message.substr(0, crash_.message.find(" in operation"));
    f_.verdict.message = a == nullptr ? signal + " outside the calls (building or destroying the object)"
                                      : fmt::format("{} in the call {}({}) [{}]", signal, exec_.names()[a->op],
                                                    a->args->text(), thread_name(thread));
    if (thread != detail::no_thread) {
      const bool started = std::any_of(f_.run.calls.begin(), f_.run.calls.end(),
                                       [&](const call_record& r) { return r.thread == thread && r.pending(); });
      if (a != nullptr && !started) {
        call_record r;
        r.op = a->op;
        r.args = a->args;
        r.thread = thread;
        r.part = thread != 0 ? part::parallel : part::init;
        for (const call_record& earlier : f_.run.calls)
          r.invoked = std::max({r.invoked, earlier.invoked + 1, earlier.responded.value_or(0) + 1});
        f_.run.events.push_back({interleaving_event::kind::invoke, thread, f_.run.calls.size(), {}});
        f_.run.calls.push_back(std::move(r));
      }
      f_.run.events.push_back({interleaving_event::kind::switched, thread, 0, "crashed: " + signal});
    }
    const std::string text = f_.verdict.message + "\n" + report_();
    for (std::string_view rest = text; !rest.empty();) {
      const ssize_t n = ::write(fd_, rest.data(), rest.size());
      if (n <= 0) break;
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    ::_exit(0);
  }

 private:
  static std::vector<trace_step> prefix(const std::vector<trace_step>& steps) {
    std::size_t last = steps.size();
    while (last > 0 && steps[last - 1].kind != step_kind::schedule) --last;
    if (last > 0) --last;
    return {steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(last)};
  }
  heddle::detail::replay_strategy replaying_;
  detail::executor& exec_;
  detail::failing_run& f_;
  const bug& crash_;
  std::function<std::string()> report_;
  int fd_;
};

// The failure the runner found, as check() reports it: its scenario (the
// minimized trace's input), its run again (in this process, or in a child
// up to the crash) for the interleaving, and why.
failure failure_of(const declaration& d, const heddle::bug_group& g, const std::optional<scenario>& given,
                   const std::string& test, const std::string& program) {
  using namespace detail;
  const trace& t = g.minimized_trace;
  kept_scenario k = given ? kept_scenario{0, *given} : scenario_of(d, t, "the failing trace");
  const std::size_t original_calls = given ? given->calls() : generate_scenario(d, d.opts.seed, k.index).calls();
  failing_run f{k.sc, {}, judgement_of(g.bug), k.reductions, k.reductions_on_schedule};
  executor exec(d.erased, d.opts);
  const auto report = [&] { return format_report(exec.names(), f, d.opts, k.index, original_calls, !given); };
  std::string text;
  if (g.bug.kind == bug_kind::crash) {
    f.verdict = {"crash", bug_kind::crash, g.bug.message};
    int fds[2];
    if (::pipe(fds) == 0) {
      const pid_t child = ::fork();
      if (child == 0) {
        ::close(fds[0]);
        for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(signal, SIG_DFL);
        crash_reporter reporter(t.steps, exec, f, g.bug, report, fds[1]);
        reporter.begin_iteration(0, 0);
        (void)exec.run(k.sc, reporter);
        ::_exit(0);
      }
      ::close(fds[1]);
      char buffer[4096];
      for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR);)
        if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
      ::close(fds[0]);
      if (child > 0)
        (void)heddle::detail::wait_for_child(child, std::chrono::steady_clock::now() + std::chrono::seconds(10));
    }
    if (const std::size_t newline = text.find('\n'); newline != std::string::npos) {
      f.verdict.message = text.substr(0, newline);
      text.erase(0, newline + 1);
    } else {
      text = report();  // the interleaving could not be had: the scenario and why, at least
    }
  } else {
    heddle::detail::replay_strategy replaying(t.steps, t.header.strategy);
    replaying.begin_iteration(t.header.iteration, 0);
    f.run = exec.run(k.sc, replaying);
    if (std::optional<judgement> j = exec.judge(f.run)) f.verdict = std::move(*j);
    text = report();
  }
  failure out;
  out.kind = f.verdict.kind;
  out.bug = f.verdict.bug;
  out.message = f.verdict.message;
  out.scenario = scenario_text(exec.names(), f.sc);
  out.threads = f.sc.threads.size();
  out.parallel_calls = f.sc.parallel_calls();
  auto add = [&](const std::vector<actor>& actors) {
    for (const actor& a : actors) out.operations.push_back(exec.names()[a.op]);
  };
  add(f.sc.init);
  for (const auto& thread : f.sc.threads) add(thread);
  add(f.sc.post);
  out.scenario_index = k.index;
  out.original_calls = original_calls;
  out.reductions = f.reductions;
  out.reductions_on_recorded_schedule = f.reductions_on_schedule;
  out.trace_file = g.trace_file;
  out.iteration = g.first_iteration;
  out.report = text + replay_hint(program, test, g.trace_file, g.bug.kind == bug_kind::crash ? "crashes" : "fails");
  return out;
}

// The runner's search of `d`'s scenarios (or the one `given`), as check()'s result.
result run(const declaration& d, const heddle::options& runner, const test_identity& id,
           const std::optional<scenario>& given) {
  const auto started = std::chrono::steady_clock::now();
  heddle::options o = runner;
  // A given scenario's runs take the seeds generated scenario 0's would.
  o.seed = given ? heddle::detail::iteration_seed(d.opts.seed, 0) : d.opts.seed;
  o.iterations = d.opts.scenarios * d.opts.iterations;
  o.scenarios = d.opts.scenarios;
  o.strategy = d.opts.strategy;
  o.max_steps = d.opts.max_steps;
  o.fail_on_max_steps = d.opts.fail_on_max_steps;
  o.memory = d.opts.memory;
  o.detect_races = d.opts.detect_races;
  o.minimize = d.opts.minimize;
  o.print_report = false;
  o.replay.clear();
  // Never in this process: a crash comes back from a worker, to be
  // minimized and reported like any failure.
  o.parallel = std::max(o.parallel, 1u);
  const heddle::result found =
      heddle::detail::explore_as_given(o, detail::explore_body(d, given), id, detail::scenario_reduction(d));
  result res;
  res.runs = found.stats.iterations;
  res.steps = found.stats.steps_total;
  res.skipped_runs = found.stats.max_steps_hits;
  res.atomic_steps = found.stats.atomic_steps;
  res.memory_steps = found.stats.memory_steps;
  res.scenarios = std::min<std::uint64_t>(d.opts.scenarios, res.runs);
  if (!found.bugs.empty()) {
    res.failure = failure_of(d, found.bugs.front(), given, id.test, id.program);
    if (d.opts.print_report) std::fputs(res.failure->report.c_str(), stderr);
  }
  res.elapsed = std::chrono::steady_clock::now() - started;
  return res;
}

}  // namespace

// From code: the runner searches, in one worker process, as under `heddle
// test`. A plain GoogleTest test is no test `heddle replay` could run: no trace.
result check(const declaration& d) {
  validate(d);
  heddle::options runner;
  runner.progress = false;
  runner.out.clear();
  return run(d, runner, {"check", {}}, std::nullopt);
}

result detail::check_in_runner(const declaration& d, const heddle::options& runner, const std::string& test,
                               const std::string& trace_directory) {
  validate(d);
  heddle::options o = runner;
  if (trace_directory.empty()) o.out.clear();
  return run(d, o, {test, heddle::detail::test_binary_path()}, std::nullopt);
}

// The RapidCheck front end's scenario: the runner runs it, unminimized.
result detail::check_scenario(const declaration& d, const scenario& sc) {
  validate(d, true);
  heddle::options runner;
  runner.progress = false;
  runner.out.clear();
  return run(d, runner, {"check", {}}, sc);
}

verdict check_history(const declaration& d, const history& h, consistency condition, bool pending_must_block) {
  if (!d.erased.make_model) throw declaration_error("heddle lincheck: " + d.erased.problems.front());
  detail::operation_names names;
  for (const auto& op : d.erased.ops) names.push_back(op.name);
  return detail::verify(names, *d.erased.make_model(), h, condition, pending_must_block);
}

scenario generate(const declaration& d, random_source& r) { return detail::generate_scenario(d.erased, d.opts, r); }

}  // namespace heddle::lincheck
