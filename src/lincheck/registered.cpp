// HEDDLE_LINCHECK_TEST's glue: the options from outside (HEDDLE_* variables,
// --heddle_* flags, as `heddle test` passes them), the run under check_as()
// with its crash guard, the GoogleTest failure, and the test's JSON record for
// `heddle test` (the fields of runner/summary_json.hpp's test_record that a
// lincheck run has, plus a "lincheck" object).
//
// Which heddle options mean something here: seed, iterations (runs per
// scenario), scenarios, strategy, max_steps, fail_on_max_steps, memory,
// detect_races, minimize; out (where a failure's trace goes) and replay (a
// failure's trace to replay, crash_trace.hpp). With parallel, shard,
// time_budget or check_determinism the runner's explore() searches.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "heddle/explore.hpp"
#include "heddle/lincheck.hpp"
#include "lincheck/crash_trace.hpp"
#include "lincheck/execution.hpp"
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
      // A failure's trace (crash_trace.hpp): a crash kills the process again;
      // another failure comes back as a bug, as `heddle replay` expects.
      const replay_result again = replay_trace(run, given.replay, id, results);
      if (again.reproduced) {
        record["status"] = "bug";
        record["bug"] = {{"kind", again.kind}, {"message", again.message}};
        record["trace_file"] = given.replay;
      } else {
        record["status"] = "diverged";
        record["message"] = again.message;
      }
      ADD_FAILURE_AT(file, line) << (again.reproduced ? again.kind + ": " : std::string{}) << again.message;
      heddle::detail::append_test_result(record);
      return;
    }
    // Under `heddle test` GoogleTest's output is kept aside: the report goes
    // to stderr, as HEDDLE_TEST's do. Otherwise the failure carries it.
    run.opts.print_report = !results.empty();
    // Under `heddle test` (which always passes --parallel), or asked for one
    // of its options, the runner searches (check_in_runner); otherwise check().
    using heddle::detail::option_given;
    const bool runner = option_given("parallel") || option_given("shard") || option_given("time_budget") ||
                        option_given("check_determinism");
    const std::string directory = heddle::detail::test_directory(given, {id, {}});
    const result r = runner ? check_in_runner(run, given, id, results, directory)
                            : check_as(run, id, results, directory);
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
