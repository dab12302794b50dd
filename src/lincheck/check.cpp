// check(): validates a declaration, generates scenarios from the seed, runs
// each under the controlled scheduler, and on the first failure minimizes it,
// saves its trace (crash_trace.hpp) and builds the report, under a crash guard (crash_guard.hpp) that hands a
// crash over to a standby process (crash_minimize.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "lincheck/crash_guard.hpp"
#include "lincheck/crash_minimize.hpp"
#include "lincheck/crash_trace.hpp"
#include "lincheck/scenario.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/test_registry.hpp"
#include "strategies/strategies.hpp"
#include "strategies/rng.hpp"

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

}  // namespace

namespace {

void report_failure(detail::executor& exec, const declaration& d, scenario sc, detail::judgement j,
                    std::size_t index, result& res, bool generated, const detail::crash_destination& where);

// Runs scenario number `index` (its seed derived from it); on a failure,
// minimizes it and fills res.failure.
void run_scenario(detail::executor& exec, const declaration& d, scenario sc, std::size_t index, result& res,
                  bool generated, const detail::crash_destination& where = {}) {
  const options& opts = d.opts;
  const std::uint64_t scenario_seed = heddle::detail::iteration_seed(opts.seed, index);
  ++res.scenarios;
  std::optional<detail::judgement> j = exec.explore(sc, scenario_seed, res);
  if (j) report_failure(exec, d, std::move(sc), std::move(*j), index, res, generated, where);
}

// A failure of scenario number `index` (the executor's last run): minimized,
// reported and saved into res.failure.
void report_failure(detail::executor& exec, const declaration& d, scenario sc, detail::judgement j,
                    std::size_t index, result& res, bool generated, const detail::crash_destination& where) {
  const options& opts = d.opts;
  const std::uint64_t scenario_seed = heddle::detail::iteration_seed(opts.seed, index);
  const std::size_t original_calls = sc.calls();
  detail::failing_run f{std::move(sc), exec.last_run(), std::move(j)};
  if (opts.minimize) f = detail::minimize(exec, std::move(f), scenario_seed, res);
  failure out;
  out.kind = f.verdict.kind;
  out.bug = f.verdict.bug;
  out.message = f.verdict.message;
  out.scenario = detail::scenario_text(exec.names(), f.sc);
  out.threads = f.sc.threads.size();
  out.parallel_calls = f.sc.parallel_calls();
  auto add = [&](const std::vector<actor>& actors) {
    for (const actor& a : actors) out.operations.push_back(exec.names()[a.op]);
  };
  add(f.sc.init);
  for (const auto& t : f.sc.threads) add(t);
  add(f.sc.post);
  out.scenario_index = index;
  out.original_calls = original_calls;
  out.reductions = f.reductions;
  out.reductions_on_recorded_schedule = f.reductions_on_schedule;
  out.report = detail::format_report(exec.names(), f, opts, index, original_calls, generated);
  bug found;  // a result the condition does not explain fails the judge: an assertion over the history
  found.kind = f.verdict.bug.value_or(bug_kind::assertion);
  found.message = f.verdict.bug ? f.verdict.message : f.verdict.kind + ": " + f.verdict.message;
  out.trace_file = detail::save_trace(d, where, index, f.sc, std::move(f.run.trace), std::move(found));
  out.report += detail::replay_hint(where, out.trace_file, "fails");
  if (opts.print_report) std::fputs(out.report.c_str(), stderr);
  res.failure = std::move(out);
}

}  // namespace

result check(const declaration& d) { return detail::check_as(d, {}, {}); }

result detail::check_as(const declaration& d, const std::string& test, const std::string& result_file,
                        const std::string& trace_directory) {
  validate(d);
  const auto started = std::chrono::steady_clock::now();
  // Forked before anything runs: a crash is minimized from this state.
  const detail::crash_destination where{test, result_file, trace_directory,
                                       test.empty() ? std::string{} : heddle::detail::test_binary_path()};
  detail::crash_supervisor standby(d, where);
  detail::executor exec(d.erased, d.opts);
  detail::crash_guard guard(exec, d.opts, test, result_file);
  result res;
  guard.hand_over_to(&standby, &res, started);
  for (std::size_t s = 0; s < d.opts.scenarios && !res.failure; ++s) {
    random_source r(heddle::detail::iteration_seed(d.opts.seed, s));
    scenario sc = detail::generate_scenario(d.erased, d.opts, r);
    guard.enter_scenario(s, sc);
    run_scenario(exec, d, std::move(sc), s, res, true, where);
  }
  res.elapsed = std::chrono::steady_clock::now() - started;
  return res;
}

result detail::check_in_runner(const declaration& d, const heddle::options& runner, const std::string& test,
                               const std::string& result_file, const std::string& trace_directory) {
  validate(d);
  const auto started = std::chrono::steady_clock::now();
  const detail::crash_destination where{test, result_file, trace_directory, heddle::detail::test_binary_path()};
  detail::crash_supervisor standby(d, where);
  detail::executor exec(d.erased, d.opts);
  // Around the replay of a crash found in a worker: minimized by the standby.
  detail::crash_guard guard(exec, d.opts, test, result_file);
  result res;
  guard.hand_over_to(&standby, &res, started);
  heddle::options o = runner;
  o.seed = d.opts.seed;
  o.iterations = d.opts.scenarios * d.opts.iterations;
  o.scenarios = d.opts.scenarios;
  o.strategy = d.opts.strategy;
  o.max_steps = d.opts.max_steps;
  o.fail_on_max_steps = d.opts.fail_on_max_steps;
  o.memory = d.opts.memory;
  o.detect_races = d.opts.detect_races;
  o.minimize = false;  // calls and schedule are minimized together below
  o.stop_on_first_bug = true;
  o.print_report = false;
  o.out.clear();  // the trace saved is lincheck's, with the kept calls
  o.replay.clear();
  // Never in this process: a crash comes back from a worker, to be replayed
  // here under the guard and minimized by the standby.
  o.parallel = std::max(o.parallel, 1u);
  const heddle::result found = heddle::detail::explore_as_given(o, detail::explore_body(d), {test, where.program});
  res.runs = found.stats.iterations;
  res.steps = found.stats.steps_total;
  res.skipped_runs = found.stats.max_steps_hits;
  res.scenarios = std::min<std::uint64_t>(d.opts.scenarios, res.runs);
  std::vector<trace_step> steps = found.trace.steps;
  const auto choice = std::find_if(steps.begin(), steps.end(),
                                   [](const trace_step& s) { return s.kind == step_kind::choose_int; });
  if (found.bug && choice != steps.end()) {
    const std::size_t index = choice->value;
    steps.erase(choice);  // check()'s run of the scenario makes no choice
    random_source r(heddle::detail::iteration_seed(d.opts.seed, index));
    scenario sc = detail::generate_scenario(d.erased, d.opts, r);
    guard.enter_scenario(index, sc);
    heddle::detail::replay_strategy replaying(std::move(steps), found.trace.header.strategy);
    replaying.begin_iteration(found.trace.header.iteration, 0);
    std::optional<detail::judgement> j = exec.judge(exec.run(sc, replaying));
    if (j) report_failure(exec, d, std::move(sc), std::move(*j), index, res, true, where);
    else run_scenario(exec, d, std::move(sc), index, res, true, where);  // did not replay: search it again
    if (res.failure) res.failure->iteration = found.bugs.front().first_iteration;
  }
  res.elapsed = std::chrono::steady_clock::now() - started;
  return res;
}

result detail::check_scenario(const declaration& d, const scenario& sc) {
  validate(d, true);
  const auto started = std::chrono::steady_clock::now();
  detail::executor exec(d.erased, d.opts);
  detail::crash_guard guard(exec, d.opts, {}, {});
  guard.enter_scenario(0, sc);
  result res;
  run_scenario(exec, d, sc, 0, res, false);
  res.elapsed = std::chrono::steady_clock::now() - started;
  return res;
}

verdict check_history(const declaration& d, const history& h, consistency condition, bool pending_must_block) {
  if (!d.erased.make_model) throw declaration_error("heddle lincheck: " + d.erased.problems.front());
  detail::operation_names names;
  for (const auto& op : d.erased.ops) names.push_back(op.name);
  return detail::verify(names, *d.erased.make_model(), h, condition, pending_must_block);
}

scenario generate(const declaration& d, random_source& r) { return detail::generate_scenario(d.erased, d.opts, r); }

}  // namespace heddle::lincheck
