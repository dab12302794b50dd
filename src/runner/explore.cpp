// explore(): runs iterations of a test body under a strategy until a bug, the
// iteration count, the time budget, an interrupt (Ctrl-C) or an exhausted
// search; or replays a trace.
//
// Where the iterations run: in this process by default (code that calls
// explore() observes its state afterwards), or in worker processes with
// options::parallel (runner/workers.hpp), which survive crashes and hangs.
// Either way the same iteration_runner runs each iteration and the same
// accumulator and collector add up statistics and bugs, so the result does
// not depend on where iterations ran. A failing iteration's trace is written
// (atomically: temp file, then rename) before the report is printed.
#include <chrono>
#include <cstdio>
#include <limits>

#include <fmt/format.h>

#include "backends/fiber_backend.hpp"
#include "engine/engine.hpp"
#include "heddle/explore.hpp"
#include "runner/bug_groups.hpp"
#include "runner/crash_guard.hpp"
#include "runner/interrupt.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/overrides.hpp"
#include "runner/progress.hpp"
#include "runner/replay_setup.hpp"
#include "runner/report.hpp"
#include "runner/shards.hpp"
#include "runner/statistics.hpp"
#include "runner/suppressions.hpp"
#include "runner/workers.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle {
namespace {

using namespace detail;

// Replays the one iteration a trace recorded and says whether it went the same way.
result replay(options opts, const std::function<void()>& body, const test_identity& id) {
  // The trace's options, not the caller's, decide how the iteration runs.
  trace recorded = load_replay(opts, id.test);
  const trace_header header_recorded = recorded.header;
  set_active_suppressions(opts);
  // The backend it was recorded on, unless code, HEDDLE_BACKEND or
  // --heddle_backend asks for the other one: a trace replays on either.
  if (!backend_requested(opts)) opts.backend = recorded.header.backend;
  const std::uint64_t index = recorded.header.iteration;
  const std::optional<bug> expected = recorded.found;
  replay_strategy replaying(std::move(recorded.steps), recorded.header.strategy);

  const std::unique_ptr<backend> backend = make_backend(opts);
  engine engine(*backend, {opts.max_steps, opts.fail_on_max_steps, opts.spurious_wakeups, opts.spurious_cas_failures,
                           opts.memory, opts.detect_races, opts.memory_model});
  crash_guard guard(engine, make_header(opts, id, replaying.describe(), index), test_directory(opts, id), opts.replay);

  result res;
  statistics_accumulator stats;
  const auto started = std::chrono::steady_clock::now();
  replaying.begin_iteration(index, iteration_seed(opts.seed, index));
  guard.begin_iteration(index);
  set_iteration_arguments(recorded.header.arguments);  // the test's input, as minimization left it
  const iteration_outcome& outcome = engine.run(replaying, body);
  set_iteration_arguments({});
  guard.end_iteration();
  stats.add(make_record(index, outcome));
  if (outcome.stopped) {
    res.divergence = *outcome.stopped;
  } else if (!outcome.found && replaying.remaining() > 0) {
    res.divergence = fmt::format("the program finished after {} steps, but the trace has {} more",
                                 outcome.steps.size(), replaying.remaining());
  } else if (expected && (!outcome.found || outcome.found->kind != expected->kind)) {
    res.divergence = fmt::format("the trace recorded a {} bug, but the replay ended with {}", to_string(expected->kind),
                                 outcome.found ? std::string(to_string(outcome.found->kind)) + " bug" : "no bug");
  }
  if (res.divergence)
    res.divergence = fmt::format("replay diverged: {}. Likely cause: {}", *res.divergence,
                                 divergence_cause(header_recorded, id.program));
  if (outcome.found) {
    bug_group g;
    g.bug = *outcome.found;
    g.signature = root_cause(g.bug, outcome.blocked_at);
    g.count = 1;
    g.first_iteration = index;
    g.trace.header = make_header(opts, id, replaying.describe(), index);
    g.trace.steps = outcome.trace_steps();
    g.trace.found = outcome.found;
    g.minimized_trace = g.trace;
    g.trace_file = opts.replay;
    g.report = format_report(g.bug, g.trace, outcome, {id.test, id.program, opts.replay, index, 1, true});
    bug_collector bugs(opts);
    bugs.add(std::move(g));
    bugs.into(res);
  }
  res.stats = stats.finish(std::chrono::steady_clock::now() - started);
  if (res.divergence && opts.print_report) std::fprintf(stderr, "heddle: %s\n", res.divergence->c_str());
  return res;
}

// Runs this run's iterations one after another in this process.
result run_here(const run_context& run) {
  const options& opts = run.opts;
  std::vector<std::atomic<std::uint64_t>> table(signature_table::slots);
  signature_table signatures(table.data());
  iteration_runner runner(run, signatures);
  bug_collector bugs(opts);
  statistics_accumulator stats;
  result res;
  const std::uint64_t window = runner.learning_window();
  const std::uint64_t slots = shard_slots(opts, window);
  if (window == 0 && opts.shard_index > 0 && opts.print_report)
    std::fprintf(stderr, "heddle: %s explores one schedule after another and cannot be sharded: shard 0 runs it, "
                 "shard %llu runs nothing\n", runner.describe().c_str(),
                 static_cast<unsigned long long>(opts.shard_index));
  progress_line progress(opts, slots);
  interrupt_scope interrupts;
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = opts.time_budget.count() > 0 ? started + opts.time_budget
                                                     : std::chrono::steady_clock::time_point::max();
  for (std::uint64_t slot = 0; slot < slots; ++slot) {
    iteration_report r = runner.process(shard_index_of_slot(opts, window, slot));
    stats.add(r.record);
    if (opts.record_iterations) res.iterations.push_back(r.record);
    if (r.first) {
      progress.clear();
      bugs.add(std::move(*r.first));
    }
    if (r.repeat) bugs.count(*r.repeat);
    progress.update(stats.iterations(), stats.buggy_iterations());
    if (r.divergence) {
      res.divergence = std::move(r.divergence);
      break;
    }
    if (!bugs.empty() && opts.stop_on_first_bug) break;
    if (r.exhausted) {
      res.stats.exhausted = true;
      break;
    }
    if (interrupt_scope::requested()) {
      res.interrupted = true;
      break;
    }
    if (opts.time_budget.count() > 0 && std::chrono::steady_clock::now() >= deadline) break;
  }
  progress.clear();
  const bool exhausted = res.stats.exhausted;
  res.stats = stats.finish(std::chrono::steady_clock::now() - started);
  res.stats.exhausted = exhausted;
  res.stats.schedules = runner.chosen().schedules_explored();
  res.stats.schedules_are_executions = runner.chosen().counts_executions();
  res.stats.bounded_choices = runner.chosen().bounded_choices();
  res.stats.held_wait_iterations = runner.chosen().held_wait_iterations();
  res.stats.max_steps = opts.max_steps;
  bugs.into(res);
  if (res.divergence && opts.print_report) std::fprintf(stderr, "heddle: %s\n", res.divergence->c_str());
  return res;
}

}  // namespace

result explore(const options& given, std::function<void()> body, const test_identity& id) {
  return detail::explore_as_given(detail::with_overrides(given), std::move(body), id);
}

result detail::explore_as_given(const options& opts, std::function<void()> body, const test_identity& id,
                                input_reduction reduce) {
  set_active_suppressions(opts);
  if (!opts.replay.empty()) return replay(opts, body, id);
  // A bad spec is a usage error before anything runs, here as in workers.
  const std::unique_ptr<detail::strategy> probe = make_strategy(opts.strategy, {.fair_after = opts.fair_after});
  // Interrupted before it began (an earlier test of the binary took the
  // Ctrl-C): nothing runs, and the result says so (status not_run).
  if (interrupt_scope::requested()) {
    result res;
    res.interrupted = true;
    res.stats.memory_model = opts.memory_model;
    return res;
  }
  const run_context run{opts, id, std::move(body), test_directory(opts, id), std::move(reduce)};
  result res = opts.parallel == 0 ? run_here(run) : run_workers(run);
  res.stats.memory_model = opts.memory_model;
  // Counted in shared memory, so workers' suppressed races are here too.
  for (std::size_t i = 0; i < active_suppressions().entries.size(); ++i) res.stats.races_suppressed += suppressed_count(i);
  return res;
}

}  // namespace heddle
