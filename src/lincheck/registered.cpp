// HEDDLE_LINCHECK_TEST's glue: the options from outside (HEDDLE_* variables,
// --heddle_* flags, as `heddle test` passes them), the run under
// check_in_runner(), the GoogleTest failure, and the test's JSON record for
// `heddle test` (the fields of runner/summary_json.hpp's test_record that a
// lincheck run has, plus a "lincheck" object).
//
// Which heddle options mean something here: seed, iterations (runs per
// scenario), scenarios, strategy, max_steps, fail_on_max_steps, memory,
// detect_races, minimize; out (where a failure's trace goes) and replay (a
// failure's trace to replay, as the runner replays any test's); parallel, shard, time_budget
// and check_determinism go to the runner's explore(), which searches.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "heddle/explore.hpp"
#include "heddle/lincheck.hpp"
#include "lincheck/execution.hpp"
#include "lincheck/scenario.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/overrides.hpp"
#include "runner/test_registry.hpp"

namespace heddle::lincheck::detail {
namespace {

using nlohmann::json;

// The declaration's options, overridden where a variable or flag says so.
lincheck::options overridden(lincheck::options o) {
  using heddle::detail::option_given;
  const heddle::options given = heddle::detail::with_overrides({});
  if (option_given("seed")) o.seed = given.seed;
  if (option_given("iterations")) o.iterations = given.iterations;
  if (option_given("scenarios")) o.scenarios = given.scenarios;
  if (option_given("strategy")) o.strategy = given.strategy;
  if (option_given("max_steps")) o.max_steps = given.max_steps;
  if (option_given("fail_on_max_steps")) o.fail_on_max_steps = given.fail_on_max_steps;
  if (option_given("memory")) o.memory = given.memory;
  if (option_given("detect_races")) o.detect_races = given.detect_races;
  if (option_given("minimize")) o.minimize = given.minimize;
  return o;
}

}  // namespace

// Replays the failure's trace at `path` through the runner: a crash kills
// the process again; another failure comes back as a bug, as `heddle replay`
// expects. A trace that does not fit the declaration is a usage error.
json replay_record(const std::string& id, declaration run, const heddle::options& given) {
  trace t;
  try {
    t = load_trace(given.replay);
  } catch (const trace_error& e) {
    throw usage_error(e.what());
  }
  if (t.header.test != id)
    throw usage_error(fmt::format("trace '{}' belongs to test '{}', not to {}", given.replay, t.header.test, id));
  run.opts.seed = t.header.seed;
  run.opts.memory = t.header.memory;
  run.opts.detect_races = t.header.detect_races;
  (void)scenario_of(run, t, fmt::format("trace '{}' of test {}", given.replay, id));
  const heddle::result r =
      heddle::detail::explore_as_given(given, explore_body(run), {id, heddle::detail::test_binary_path()});
  json record = {{"test", id}};
  if (r.divergence || !r.bug) {
    record["status"] = "diverged";
    record["message"] = r.divergence.value_or("the replay ended without the failure the trace recorded");
  } else {
    std::string kind(to_string(r.bug->kind));
    std::string message = r.bug->message;
    if (const std::size_t colon = message.find(": "); r.bug->kind == bug_kind::assertion && colon != std::string::npos) {
      kind = message.substr(0, colon);
      message.erase(0, colon + 2);
    }
    record["status"] = "bug";
    record["bug"] = {{"kind", kind}, {"message", message}};
    record["trace_file"] = given.replay;
  }
  return record;
}

json record_of(const std::string& id, const lincheck::options& o, const result& r) {
  const double seconds = std::chrono::duration<double>(r.elapsed).count();
  json record = {
      {"test", id},
      {"status", !r.failure ? "passed" : r.failure->kind == "crash" ? "crash" : "bug"},
      {"stats",
       {{"iterations", r.runs},
        {"seconds", seconds},
        {"iterations_per_second", seconds > 0 ? static_cast<double>(r.runs) / seconds : 0.0},
        {"steps_total", r.steps},
        {"steps_mean", r.runs > 0 ? static_cast<double>(r.steps) / static_cast<double>(r.runs) : 0.0},
        {"max_steps_hits", r.skipped_runs}}},
      {"bugs", json::array()},
      {"lincheck",
       {{"scenarios", r.scenarios},
        {"runs", r.runs},
        {"skipped_runs", r.skipped_runs},
        {"steps", r.steps},
        {"atomic_steps", r.atomic_steps},
        {"memory_steps", r.memory_steps},
        {"strategy", o.strategy},
        {"seed", o.seed},
        {"runs_per_scenario", o.iterations},
        {"scenarios_declared", o.scenarios}}}};
  if (r.failure) {
    // The report's first line, without its prefix, is the one-line message.
    std::string line = r.failure->report.substr(0, r.failure->report.find('\n'));
    if (const std::string prefix = "heddle lincheck: "; line.starts_with(prefix)) line.erase(0, prefix.size());
    // A crash says where first, as heddle's crashes do.
    if (r.failure->kind == "crash")
      line = fmt::format("{} (test {}, scenario {} of {}{})", r.failure->message, id, r.failure->scenario_index,
                         o.scenarios,
                         r.failure->reductions > 0 ? fmt::format(", minimized from {} calls", r.failure->original_calls) : "");
    record["bug"] = {{"kind", r.failure->kind}, {"message", line}};
    record["report"] = r.failure->report;
    if (!r.failure->trace_file.empty()) record["trace_file"] = r.failure->trace_file;
    if (r.failure->iteration) record["iteration"] = *r.failure->iteration;
  }
  return record;
}

void run_test(const char* suite, const char* name, const char* file, int line, const declaration& d) {
  const std::string id = fmt::format("{}.{}", suite, name);
  const std::string& results = heddle::detail::test_result_file();
  json record = {{"test", id}};
  try {
    declaration run = d;
    run.opts = overridden(d.opts);
    const heddle::options given = heddle::detail::with_overrides({});
    if (heddle::detail::option_given("replay")) {
      record = replay_record(id, run, given);
      ADD_FAILURE_AT(file, line) << (record.contains("bug") ? record["bug"].dump() : record["message"].dump());
      heddle::detail::append_test_result(record);
      return;
    }
    // Under `heddle test` GoogleTest's output is kept aside: the report goes
    // to stderr, as HEDDLE_TEST's do. Otherwise the failure carries it.
    run.opts.print_report = !results.empty();
    // The runner searches, with the options `heddle test` or the flags gave.
    const std::string directory = heddle::detail::test_directory(given, {id, {}});
    const result r = check_in_runner(run, given, id, directory);
    record = record_of(id, run.opts, r);
    if (r.failure) ADD_FAILURE_AT(file, line) << r.failure->report;
  } catch (const std::exception& e) {  // declaration_error, usage_error: one line
    record["status"] = "error";
    record["message"] = e.what();
    ADD_FAILURE_AT(file, line) << e.what();
  }
  heddle::detail::append_test_result(record);
}

}  // namespace heddle::lincheck::detail
