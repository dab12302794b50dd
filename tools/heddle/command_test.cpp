// `heddle test <test-binary> [options]`: explores the selected heddle tests of
// a binary and summarizes what it found.
//
// Contract: every option value is checked before the binary starts (a bad
// value is one line and exit 2). The binary runs once, with
// --gtest_filter=<the selected tests>, the --heddle_* option flags and
// --heddle_result_file; its reports stream through as they happen. Results
// come back as one JSON object per explored test (src/runner/test_registry.cpp).
// A binary that dies of a fatal signal is a crash bug in the first selected
// test without a result; the crash handler's bug-N.trace (found by comparing
// the --out directory before and after) is named in the summary.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "engine/strategy.hpp"
#include "heddle/explore.hpp"
#include "heddle/version.hpp"
#include "process.hpp"
#include "runner/summary_json.hpp"
#include "summary.hpp"
#include "runner/overrides.hpp"
#include "test_binary.hpp"

namespace heddle::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Checks every value the way the test binary will, so a typo fails here, in
// one line, before anything runs.
void validate(const test_arguments& a) {
  options checked = detail::with_overrides({});
  const auto check = [&](const std::optional<std::string>& value, std::string_view name, std::string_view flag) {
    if (value) detail::set_option(checked, name, *value, flag);
  };
  check(a.iterations, "iterations", "--iterations");
  check(a.time_budget, "time_budget", "--time-budget");
  check(a.seed, "seed", "--seed");
  check(a.max_steps, "max_steps", "--max-steps");
  check(a.fair_after, "fair_after", "--fair-after");
  check(a.stack_size, "stack_size", "--stack-size");
  check(a.parallel, "parallel", "--parallel");
  check(a.iteration_timeout, "iteration_timeout", "--iteration-timeout");
  check(a.shard, "shard", "--shard");
  check(a.memory, "memory", "--memory");
  check(a.memory_model, "memory_model", "--memory-model");
  check(a.detect_races, "detect_races", "--detect-races");
  check(a.backend, "backend", "--backend");
  check(a.scenarios, "scenarios", "--scenarios");
  check(a.spurious_wakeups, "spurious_wakeups", "--spurious-wakeups");
  check(a.spurious_cas_failures, "spurious_cas_failures", "--spurious-cas-failures");
  check(a.suppressions, "suppressions", "--suppressions");
  if (a.strategy) (void)detail::make_strategy(*a.strategy, {.fair_after = checked.fair_after});
}

std::string output_directory(const test_arguments& a) {
  if (a.out) return *a.out;
  if (const char* env = std::getenv("HEDDLE_OUT"); env != nullptr) return env;
  return options{}.out;
}

std::set<std::string> saved_crash_traces(const std::string& directory) {
  std::set<std::string> found;
  if (directory.empty()) return found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".trace") found.insert(it->path().string());
  return found;
}

// Worker processes: --parallel, else $HEDDLE_PARALLEL, else one per CPU.
std::string parallelism(const test_arguments& a) {
  if (a.parallel) return *a.parallel;
  if (const char* env = std::getenv("HEDDLE_PARALLEL"); env != nullptr) return env;
  return std::to_string(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<std::string> binary_arguments(const test_arguments& a, const std::vector<test_outcome>& selected,
                                          const std::string& results, const std::string& out) {
  std::string filter;
  for (const test_outcome& t : selected) filter += (filter.empty() ? "" : ":") + t.id;
  std::vector<std::string> argv = {a.program, "--gtest_filter=" + filter, "--gtest_brief=1",
                                   "--heddle_result_file=" + results, "--heddle_out=" + out};
  const auto pass = [&](const std::optional<std::string>& value, std::string_view name) {
    if (value) argv.push_back(fmt::format("--heddle_{}={}", name, *value));
  };
  pass(a.iterations, "iterations");
  pass(a.time_budget, "time_budget");
  pass(a.strategy, "strategy");
  pass(a.seed, "seed");
  pass(a.max_steps, "max_steps");
  pass(a.fair_after, "fair_after");
  pass(a.stack_size, "stack_size");
  pass(a.iteration_timeout, "iteration_timeout");
  pass(a.shard, "shard");
  argv.push_back(fmt::format("--heddle_parallel={}", parallelism(a)));
  pass(a.memory, "memory");
  pass(a.memory_model, "memory_model");
  pass(a.detect_races, "detect_races");
  pass(a.backend, "backend");
  pass(a.scenarios, "scenarios");
  pass(a.spurious_wakeups, "spurious_wakeups");
  pass(a.spurious_cas_failures, "spurious_cas_failures");
  pass(a.suppressions, "suppressions");
  if (a.fail_on_max_steps) argv.push_back("--heddle_fail_on_max_steps=1");
  if (a.explore) argv.push_back("--heddle_stop_on_first_bug=0");
  if (a.check_determinism) argv.push_back("--heddle_check_determinism=1");
  if (a.record_iterations) argv.push_back("--heddle_record_iterations=1");
  if (a.no_progress) argv.push_back("--heddle_progress=0");
  if (a.no_minimize) argv.push_back("--heddle_minimize=0");
  return argv;
}

void take_crash(test_outcome& t, int signal, const std::vector<std::string>& new_traces) {
  t.status = "crash";
  t.kind = "crash";
  t.message = fmt::format("the test binary died of {}", signal_name(signal));
  if (new_traces.empty()) return;
  t.trace_file = new_traces.back();
  try {
    const trace saved = load_trace(t.trace_file);
    if (saved.found) {
      t.kind = std::string(to_string(saved.found->kind));
      t.message = saved.found->message;
    }
  } catch (const trace_error&) {
    // The crash handler could not finish the file; the signal is all we know.
  }
}

// The JSON summary (docs/report-schema.md): the run's parameters and every
// test's record.
json json_summary(const std::vector<test_outcome>& tests, const test_arguments& a, int exit) {
  options o;
  if (a.shard) detail::set_option(o, "shard", *a.shard, "--shard");
  const auto given = [](const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); };
  const json run = {{"strategy", given(a.strategy)},
                    {"seed", given(a.seed)},
                    {"iterations", given(a.iterations)},
                    {"time_budget", given(a.time_budget)},
                    {"max_steps", given(a.max_steps)},
                    {"iteration_timeout", given(a.iteration_timeout)},
                    {"parallel", detail::parse_unsigned(parallelism(a), "--parallel")},
                    {"explore", a.explore},
                    {"check_determinism", a.check_determinism},
                    {"shard", {{"index", o.shard_index}, {"count", o.shard_count}}}};
  return {{"schema", "heddle-summary"},
          {"schema_version", detail::summary_schema_version},
          {"heddle_version", version},
          {"program", a.program},
          {"filter", a.filter},
          {"run", run},
          {"status", status_word(exit)},
          {"exit_code", exit},
          {"tests", json_tests(tests)}};
}

bool is_interruption(int signal) {
  return signal == SIGINT || signal == SIGTERM || signal == SIGHUP || signal == SIGKILL || signal == SIGQUIT;
}

// The CLI's exit status from the outcomes, in order of precedence: any bug
// (1); a test the binary could not run as asked (2); a binary that ended in
// a way its records do not explain (3, or 1 for a GoogleTest failure outside
// heddle's checks); otherwise 0. Sets `problem` to the unexplained part.
int exit_for(const std::vector<test_outcome>& tests, const exit_status& status, std::size_t reported,
             std::string& problem) {
  for (const test_outcome& t : tests)
    if (is_bug(t)) return bug_found;
  if (status.signaled()) {
    problem = is_interruption(status.signal)
                  ? fmt::format("the test binary was stopped by {}", signal_name(status.signal))
                  : fmt::format("the test binary died of {} outside any test", signal_name(status.signal));
    return internal_error;
  }
  for (const test_outcome& t : tests)
    if (t.status == "error" || t.status == "diverged") return usage_problem;
  if (status.code == usage_problem && reported == 0) {
    problem = "the test binary rejected its arguments (see its message above)";
    return usage_problem;
  }
  if (reported < tests.size()) {
    problem = fmt::format("the test binary exited with status {} without reporting every selected test", status.code);
    return internal_error;
  }
  if (status.code != 0) {
    problem = "GoogleTest reported a failure outside heddle's checks (see its output above)";
    return bug_found;
  }
  return no_bug;
}

}  // namespace

int run_test(const test_arguments& a) {
  validate(a);
  check_executable(a.program, "test binary");

  std::vector<test_outcome> selected;
  const std::vector<listed_test> listed = list_tests(a.program);
  for (const listed_test& t : listed)
    if (filter_selects(a.filter, t.id)) selected.push_back({.id = t.id, .location = t.location});
  if (selected.empty()) {
    std::string names;
    for (const listed_test& t : listed) names += (names.empty() ? "" : ", ") + t.id;
    if (listed.empty()) throw usage_error(fmt::format("'{}' has no heddle tests (no HEDDLE_TEST in it)", a.program));
    throw usage_error(fmt::format("no test in '{}' matches --filter '{}' (its tests: {})", a.program, a.filter, names));
  }

  const std::string out = output_directory(a);
  const std::set<std::string> traces_before = saved_crash_traces(out);
  temp_file results("results");
  // The binary's stderr (heddle's reports, crash messages) streams through.
  // Its stdout is GoogleTest's account of what the results file says better;
  // it is kept aside and shown only when the results do not explain the exit.
  temp_file gtest_output("stdout");
  std::fflush(stdout);
  const exit_status status =
      run_process(a.program, binary_arguments(a, selected, results.path(), out), {gtest_output.fd(), -1});

  std::map<std::string, json> records;
  std::istringstream lines(results.read());
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const json record = json::parse(line, nullptr, false);
    if (record.is_object() && record.contains("test")) records[record["test"].get<std::string>()] = record;
  }

  // Every selected test gets its record; a fatal signal is blamed on the first
  // test without one (the binary runs tests in order and stops dead).
  bool blamed = false;
  for (test_outcome& t : selected) {
    if (const auto r = records.find(t.id); r != records.end()) {
      take_record(t, r->second);
    } else if (status.signaled() && !blamed && !is_interruption(status.signal)) {
      blamed = true;
      std::vector<std::string> fresh;
      for (const std::string& path : saved_crash_traces(out))
        if (!traces_before.contains(path)) fresh.push_back(path);
      take_crash(t, status.signal, fresh);
    }
  }
  std::string problem;  // what the records do not explain, if anything
  const int exit = exit_for(selected, status, records.size(), problem);
  if (!problem.empty()) std::fputs(gtest_output.read().c_str(), stderr);
  json summary = json_summary(selected, a, exit);
  if (!problem.empty()) summary["message"] = problem;
  if (a.json_out) write_json_file(*a.json_out, summary);
  if (a.format == "json") {
    fmt::print("{}\n", summary.dump(2));
  } else {
    print_text_summary(selected, a.program, exit);
    if (!problem.empty()) fmt::print(stderr, "heddle: {}\n", problem);
  }
  return exit;
}

}  // namespace heddle::cli
