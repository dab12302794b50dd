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

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "engine/strategy.hpp"
#include "heddle/explore.hpp"
#include "heddle/version.hpp"
#include "process.hpp"
#include "runner/overrides.hpp"
#include "test_binary.hpp"

namespace heddle::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What happened to one selected test.
struct test_outcome {
  std::string id;
  std::string location;
  // passed, bug, crash, error, diverged, not_run
  std::string status = "not_run";
  std::string kind;     // bug kind, for bug and crash
  std::string message;  // the bug's or the error's message
  std::string where;    // "file:line" of the bug, when known
  std::string operation;
  std::string trace_file;
  json record;  // the test binary's result record, when there is one
};

bool is_bug(const test_outcome& t) { return t.status == "bug" || t.status == "crash"; }

// Checks every value the way the test binary will, so a typo fails here, in
// one line, before anything runs.
void validate(const test_arguments& a) {
  options checked;
  const auto check = [&](const std::optional<std::string>& value, std::string_view name, std::string_view flag) {
    if (value) detail::set_option(checked, name, *value, flag);
  };
  check(a.iterations, "iterations", "--iterations");
  check(a.time_budget, "time_budget", "--time-budget");
  check(a.seed, "seed", "--seed");
  check(a.max_steps, "max_steps", "--max-steps");
  check(a.fair_after, "fair_after", "--fair-after");
  check(a.stack_size, "stack_size", "--stack-size");
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
  if (a.fail_on_max_steps) argv.push_back("--heddle_fail_on_max_steps=1");
  return argv;
}

void take_record(test_outcome& t, const json& record) {
  t.record = record;
  t.status = record.value("status", "error");
  t.message = record.value("message", "");
  t.trace_file = record.value("trace_file", "");
  if (const auto b = record.find("bug"); b != record.end() && b->is_object()) {
    t.kind = b->value("kind", "");
    t.message = b->value("message", "");
    const std::string file = b->value("file", "");
    const unsigned line = b->value("line", 0u);
    if (!file.empty() && line != 0) t.where = fmt::format("{}:{}", file, line);
    const unsigned op = b->value("operation", 0u);
    const std::string name = b->value("operation_name", "");
    if (op != 0) t.operation = name.empty() ? fmt::format("operation {}", op) : fmt::format("operation {} ({})", op, name);
  }
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

std::string replay_command(const test_outcome& t) {
  return t.trace_file.empty() ? std::string{} : "heddle replay " + shell_quote(t.trace_file);
}

std::string stats_text(const json& record) {
  const json stats = record.value("stats", json::object());
  const std::uint64_t iterations = stats.value("iterations", std::uint64_t{0});
  const double seconds = stats.value("seconds", 0.0);
  std::string text = fmt::format("{} iteration{} in {:.2f} s", iterations, iterations == 1 ? "" : "s", seconds);
  if (seconds > 0) text += fmt::format(" ({:.0f}/s)", static_cast<double>(iterations) / seconds);
  if (const auto hits = stats.value("max_steps_hits", std::uint64_t{0}); hits > 0)
    text += fmt::format(", {} ended at --max-steps", hits);
  return text;
}

void print_text_summary(const std::vector<test_outcome>& tests, const std::string& program, int exit) {
  fmt::print("\nheddle: summary of {} ({} test{})\n", program, tests.size(), tests.size() == 1 ? "" : "s");
  for (const test_outcome& t : tests) {
    if (t.status == "passed") {
      const json stats = t.record.value("stats", json::object());
      if (stats.value("exhausted", false)) {
        // A systematic strategy covered every schedule: a verified verdict.
        const std::uint64_t schedules = stats.value("iterations", std::uint64_t{0});
        fmt::print("  {}  passed: explored all {} schedule{} (verified)\n", t.id, schedules, schedules == 1 ? "" : "s");
        fmt::print("      {}\n", stats_text(t.record));
        continue;
      }
      fmt::print("  {}  passed: no bug in {}\n", t.id, stats_text(t.record));
      continue;
    }
    if (t.status == "not_run") {
      fmt::print("  {}  not run (the binary stopped before it)\n", t.id);
      continue;
    }
    if (is_bug(t)) {
      fmt::print("  {}  BUG{}\n", t.id, t.record.is_object() ? " found after " + stats_text(t.record) : "");
      fmt::print("      {}: {}\n", t.kind, t.message);
      if (!t.where.empty() || !t.operation.empty())
        fmt::print("      {}{}{}\n", t.operation.empty() ? "" : "in " + t.operation, t.operation.empty() || t.where.empty() ? "" : " ",
                   t.where.empty() ? "" : "at " + t.where);
      if (!t.trace_file.empty()) {
        fmt::print("      trace:  {}\n", t.trace_file);
        fmt::print("      replay: {}\n", replay_command(t));
      } else {
        fmt::print("      no trace was saved (pass --out DIR to keep it)\n");
      }
      continue;
    }
    fmt::print("  {}  {}: {}\n", t.id, t.status == "diverged" ? "replay diverged" : "error", t.message);
  }
  std::size_t bugs = 0;
  for (const test_outcome& t : tests) bugs += is_bug(t) ? 1 : 0;
  if (bugs > 0)
    fmt::print("heddle: {} bug{} found in {} test{}\n", bugs, bugs == 1 ? "" : "s", tests.size(),
               tests.size() == 1 ? "" : "s");
  else if (exit == no_bug)
    fmt::print("heddle: no bug found\n");
}

json json_summary(const std::vector<test_outcome>& tests, const test_arguments& a, int exit) {
  json all = json::array();
  for (const test_outcome& t : tests) {
    json entry = {{"test", t.id}, {"location", t.location}, {"status", t.status}};
    if (is_bug(t)) {
      json b = t.record.is_object() && t.record.contains("bug") ? t.record["bug"] : json::object();
      b["kind"] = t.kind;
      b["message"] = t.message;
      entry["bug"] = b;
      entry["trace_file"] = t.trace_file;
      entry["replay"] = replay_command(t);
    } else if (!t.message.empty()) {
      entry["message"] = t.message;
    }
    if (t.record.is_object()) {
      if (t.record.contains("stats")) entry["stats"] = t.record["stats"];
      if (t.record.contains("iteration")) entry["iteration"] = t.record["iteration"];
      if (t.record.contains("report")) entry["report"] = t.record["report"];
    }
    all.push_back(std::move(entry));
  }
  const char* status = exit == no_bug ? "passed" : exit == bug_found ? "bug" : exit == usage_problem ? "error" : "internal_error";
  return {{"heddle_version", version}, {"program", a.program}, {"filter", a.filter},
          {"status", status},          {"exit_code", exit},    {"tests", all}};
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
  if (a.format == "json") {
    json summary = json_summary(selected, a, exit);
    if (!problem.empty()) summary["message"] = problem;
    fmt::print("{}\n", summary.dump(2));
  } else {
    print_text_summary(selected, a.program, exit);
    if (!problem.empty()) fmt::print(stderr, "heddle: {}\n", problem);
  }
  return exit;
}

}  // namespace heddle::cli
