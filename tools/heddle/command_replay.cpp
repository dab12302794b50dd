// `heddle replay <trace> [--program PATH]`: runs the one recorded iteration
// again and says whether the bug came back.
//
// Contract: the trace (JSON or compact, as a file or pasted "heddle:1:..."
// text) is read here first, so a malformed or truncated trace is one line and
// exit 2 before anything runs. The program is the one the trace header names
// unless --program says otherwise, and it must hold the trace's test. The
// binary runs with --gtest_filter=<test> --heddle_replay=<file>; exit 1 when
// the bug reproduced (its report is printed), 0 when the trace recorded no bug
// and none happened, 2 when the replay diverged or the trace does not fit.
// A trace of `heddle run` (test "run:<program>") re-runs that program with its
// recorded arguments instead; its fork server prints the report.
// A replay has the time limit the run had (the trace header records the
// run's --iteration-timeout; --iteration-timeout overrides it; a hang trace
// without one gets 10 s): a replay of a hang reports the hang again instead
// of hanging. For a test binary the limit (plus a second to start) bounds the
// whole replay; the fork server's watchdog applies it to the program's
// progress.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "commands.hpp"
#include "heddle/explore.hpp"
#include "heddle/trace.hpp"
#include "process.hpp"
#include "pushbutton.hpp"
#include "runner/overrides.hpp"
#include "test_binary.hpp"

namespace heddle::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Whether the trace recorded a hang: the fork server's kind hang, or a
// worker watchdog's livelock "hang: ..." (a test's operation that never came
// back to a scheduling point).
bool recorded_a_hang(const trace& recorded) {
  return recorded.found && (recorded.found->kind == bug_kind::hang ||
                            (recorded.found->kind == bug_kind::livelock && recorded.found->message.starts_with("hang:")));
}

// A test binary's replay is one process, started and ended within the limit:
// it gets this much more, so a loaded machine's slow start is not a hang.
constexpr std::chrono::milliseconds startup_allowance{1000};

// The replay's time limit (0: none): --iteration-timeout, else the run's.
std::chrono::milliseconds time_limit(const replay_arguments& args, const trace& recorded) {
  if (args.iteration_timeout) return detail::parse_duration(*args.iteration_timeout, "--iteration-timeout");
  if (recorded.header.iteration_timeout_ms != 0) return std::chrono::milliseconds(recorded.header.iteration_timeout_ms);
  if (recorded_a_hang(recorded)) return std::chrono::seconds(10);
  return {};
}

std::optional<json> read_record(const temp_file& results) {
  std::istringstream lines(results.read());
  std::optional<json> last;
  for (std::string line; std::getline(lines, line);) {
    json record = json::parse(line, nullptr, false);
    if (record.is_object()) last = std::move(record);
  }
  return last;
}

}  // namespace

int run_replay(const replay_arguments& args) {
  // A pasted compact trace becomes a file the test binary can read.
  std::unique_ptr<temp_file> pasted;
  std::string path = args.trace;
  std::error_code ec;
  if (!fs::exists(path, ec) && path.starts_with("heddle:")) {
    pasted = std::make_unique<temp_file>("trace");
    const std::string line = path + "\n";
    if (::write(pasted->fd(), line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      throw std::runtime_error("cannot write the pasted trace to a temporary file");
    path = pasted->path();
  }

  trace recorded;
  try {
    recorded = load_trace(path);
  } catch (const trace_error& e) {
    std::string problem = first_line(e.what());
    if (pasted && problem.starts_with(path + ": ")) problem = "the pasted trace: " + problem.substr(path.size() + 2);
    throw usage_error(problem);
  }
  const std::string& test = recorded.header.test;
  const std::string program = args.program ? *args.program : recorded.header.program;
  const std::chrono::milliseconds limit = time_limit(args, recorded);
  if (is_pushbutton_test(test)) {
    // A `heddle run` trace: the program starts again with the recorded
    // arguments and its fork server follows the trace in one child.
    if (program.empty()) throw usage_error(fmt::format("trace '{}' does not name its program; pass --program PATH", args.trace));
    std::error_code absolute_ec;
    std::map<std::string, std::string> variables = {{"HEDDLE_REPLAY", fs::absolute(path, absolute_ec).string()},
                                                    {"HEDDLE_ITERATIONS", "1"}};
    // Without either, the fork server's own default (10 s).
    if (args.iteration_timeout || recorded.header.iteration_timeout_ms != 0)
      variables["HEDDLE_ITERATION_TIMEOUT"] = fmt::format("{}ms", limit.count());
    return run_under_heddle(program, recorded.header.arguments, variables);
  }
  if (program.empty())
    throw usage_error(fmt::format("trace '{}' does not name the program that recorded it; pass --program PATH",
                                  args.trace));
  check_executable(program, args.program ? "program" : "the trace's program (pass --program PATH if it moved)");

  std::string names;
  bool present = false;
  for (const listed_test& t : list_tests(program)) {
    present = present || t.id == test;
    names += (names.empty() ? "" : ", ") + t.id;
  }
  if (!present)
    throw usage_error(fmt::format("trace '{}' belongs to test '{}', which '{}' does not have (its tests: {})",
                                  args.trace, test, program, names.empty() ? "none" : names));

  const std::string absolute = fs::absolute(path, ec).string();
  temp_file results("results");
  temp_file out("replay-out");
  temp_file err("replay-err");
  // A replayed crash would save its schedule again: the trace being replayed
  // already is that schedule, so the copy goes to a directory that is removed.
  temp_directory scratch("replay");
  const exit_status status =
      run_process(program,
                  {program, "--gtest_filter=" + test, "--gtest_brief=1", "--heddle_replay=" + absolute,
                   "--heddle_result_file=" + results.path(), "--heddle_out=" + scratch.path()},
                  {out.fd(), err.fd()}, limit.count() > 0 ? limit + startup_allowance : limit);
  const auto binary_stderr = [&] {
    std::string kept;
    std::istringstream lines(err.read());
    for (std::string line; std::getline(lines, line);)
      if (line.find(scratch.path()) == std::string::npos) kept += line + "\n";
    return kept;
  };
  const std::optional<json> record = read_record(results);

  if (status.timed_out) {
    std::fputs(binary_stderr().c_str(), stderr);
    const std::string within = fmt::format("the replay of {} was stopped: not finished within {}ms (plus {}ms to start)",
                                           test, limit.count(), startup_allowance.count());
    if (recorded_a_hang(recorded)) {
      fmt::print(stderr, "heddle: bug reproduced: {}: {}; the run reported: {}\n",
                 to_string(recorded.found->kind), within, first_line(recorded.found->message));
      return bug_found;
    }
    throw usage_error(fmt::format("{}, but the trace recorded {}; pass a longer --iteration-timeout if it is only slow",
                                  within,
                                  recorded.found ? fmt::format("{}: {}", to_string(recorded.found->kind),
                                                               first_line(recorded.found->message))
                                                 : std::string("no bug")));
  }
  if (status.signaled() && status.signal != SIGINT && status.signal != SIGTERM && status.signal != SIGKILL) {
    std::fputs(binary_stderr().c_str(), stderr);
    fmt::print(stderr, "heddle: bug reproduced: {} died of {}\n", test, signal_name(status.signal));
    return bug_found;
  }
  if (!record) {
    if (!status.signaled() && status.code == usage_problem) {
      std::string said = first_line(err.read());
      if (said.starts_with("heddle: ")) said.erase(0, std::string_view("heddle: ").size());
      throw usage_error(said.empty() ? "the test binary rejected the replay (exit status 2)" : said);
    }
    std::fputs(out.read().c_str(), stderr);
    std::fputs(binary_stderr().c_str(), stderr);
    fmt::print(stderr, "heddle: the replay of {} ended without a result ({})\n", test,
               status.signaled() ? "killed by " + signal_name(status.signal)
                                 : fmt::format("exit status {}", status.code));
    return internal_error;
  }
  const std::string outcome = record->value("status", "");
  if (outcome == "bug") {
    std::fputs(binary_stderr().c_str(), stderr);
    const json bug = record->value("bug", json::object());
    fmt::print(stderr, "heddle: bug reproduced: {}: {}\n", bug.value("kind", ""), bug.value("message", ""));
    return bug_found;
  }
  if (outcome == "diverged" || outcome == "error") throw usage_error(record->value("message", "the replay failed"));
  fmt::print("heddle: replayed {}: no bug, as the trace recorded\n", test);
  return no_bug;
}

}  // namespace heddle::cli
