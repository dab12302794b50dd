// What `heddle test` and `heddle merge` say at the end of a run: the outcome
// of each test (from the test binary's JSON records, docs/report-schema.md),
// printed as text or as the JSON summary.
//
// Contract: the text summary gives, per test, its verdict, the statistics
// (iterations and iterations/s, steps min/mean/max, most operations enabled
// at once, share of iterations at --max-steps, distinct schedules and end
// states) and every bug signature with its count, trace file and replay
// command. The JSON summary carries everything the records carry.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace heddle::cli {

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
  nlohmann::json record;  // the test binary's result record, when there is one
};

bool is_bug(const test_outcome& t);
void take_record(test_outcome& t, const nlohmann::json& record);
std::string replay_command(const std::string& trace_file);

void print_text_summary(const std::vector<test_outcome>& tests, const std::string& program, int exit);

// The per-test entries of the JSON summary.
nlohmann::json json_tests(const std::vector<test_outcome>& tests);
// The exit status as the summary's "status" word.
std::string status_word(int exit);
// Writes the summary to `path` (temp file, then rename); usage_error if it cannot.
void write_json_file(const std::string& path, const nlohmann::json& summary);

}  // namespace heddle::cli
