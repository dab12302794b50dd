// Running a test body under control: explore() and the assertion macros.
//
//   heddle::result r = heddle::explore({.iterations = 10000, .strategy = "pct:3"}, [] {
//     heddle::mutex m;
//     int balance = 100;
//     heddle::thread t{[&] { ... }};
//     ...
//     HEDDLE_ASSERT(balance >= 0);
//   });
//   if (r.bug) std::cerr << r.report;
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "heddle/bug.hpp"
#include "heddle/model.hpp"
#include "heddle/options.hpp"
#include "heddle/trace.hpp"

namespace heddle {

struct statistics {
  std::uint64_t iterations = 0;
  std::uint64_t steps_total = 0;
  std::uint64_t steps_min = 0;
  std::uint64_t steps_max = 0;
  std::uint64_t max_steps_hits = 0;  // iterations ended quietly at max_steps
  // Decisions taken where the chosen operation was about to touch an atomic,
  // or plain memory (instrumented code, the memory policy): how much of a
  // test's interleaving is its objects' own code, not the test's scaffolding.
  std::uint64_t atomic_steps = 0;
  std::uint64_t memory_steps = 0;
  std::uint64_t buggy_iterations = 0;  // iterations that ended with a bug
  std::uint64_t max_enabled = 0;     // most operations enabled at one decision
  std::chrono::nanoseconds elapsed{0};
  bool exhausted = false;  // the strategy explored its whole space
  std::uint64_t schedules = 0;  // complete schedules a systematic strategy (dfs, dpor) explored
  // `schedules` counts executions: under rc11, dpor counts each execution
  // graph (reads-from and modification order) once, whatever schedules made it.
  bool schedules_are_executions = false;
  heddle::memory_model memory_model = heddle::memory_model::sc;  // the model the run explored under
  // Iterations that used an atomic memory order weaker than seq_cst. heddle
  // runs every atomic as seq_cst, so those were checked on sequentially
  // consistent interleavings only, not on the reorderings weaker orders allow.
  std::uint64_t weak_order_iterations = 0;
  // Under rc11: iterations that relied on atomic orders weaker than seq_cst in
  // a process with no code built with heddle-cc/heddle-c++. heddle explored
  // those orders for the atomics, but it does not see plain (non-atomic)
  // memory there, so a plain access ordered only through them (a data race
  // under the C++ memory model) was not checked.
  std::uint64_t plain_unseen_iterations = 0;
  // Under rc11: iterations in which seq_cst accesses of two threads met an
  // atomic access weaker than seq_cst that acquires or releases (or a fence)
  // and seq_cst accesses of one location or a seq_cst fence. heddle takes
  // happens-before between seq_cst accesses of two threads as part of
  // RC11's psc there, which RC11's SC axiom does not always do, so an
  // execution RC11 allows can be missing (docs/memory-model.md, "What is
  // approximated"); a verdict says so. (The name is older than that.)
  std::uint64_t sc_in_run_order_iterations = 0;
  // Spurious wake-ups and compare-exchange failures an exhaustive strategy
  // did not explore because the same call site had one in that schedule.
  std::uint64_t bounded_choices = 0;
  // dpor: iterations in which an operation that yields in a wait loop was held
  // back from repeating a try that saw nothing change (docs/strategies.md,
  // "Wait loops under dpor"). A verdict then assumes such a try has no effect
  // but its reads.
  std::uint64_t held_wait_iterations = 0;
  std::uint64_t max_steps = 0;  // the run's max_steps, which cut max_steps_hits iterations
  // Different decision sequences among the iterations, and different values of
  // heddle::state_hash at the end of an iteration (0 when the test never calls it).
  std::uint64_t distinct_schedules = 0;
  std::uint64_t distinct_end_states = 0;
  // The sets behind those two counts, sorted, so the results of shards merge
  // into the counts of one run (heddle merge). A run keeps the first 16,000
  // values exactly, so its memory stays flat; past that its count is a
  // HyperLogLog estimate (about 1.6% standard error), and a merge of sets past
  // statistics::kept_hashes values counts a lower bound.
  std::vector<std::uint64_t> schedule_hashes;
  std::vector<std::uint64_t> end_state_hashes;
  static constexpr std::size_t kept_hashes = std::size_t{1} << 20;
  unsigned workers = 0;  // worker processes that ran the iterations (0: in this process)
  std::uint64_t workers_replaced = 0;  // after a crash, a hang or an outside kill
  // Data races options::suppressions matched, which were counted, not reported.
  std::uint64_t races_suppressed = 0;
  double iterations_per_second() const;
  double mean_steps() const;
  // What a run without a bug did not check, one sentence each: iterations cut
  // at max_steps, weaker memory orders run as seq_cst, spurious events bounded
  // per site. Empty when the verdict needs no qualification.
  std::vector<std::string> caveats() const;
};

// One iteration as statistics see it (kept in result::iterations with
// options::record_iterations). Plain data: workers pass it through shared memory.
struct iteration_record {
  std::uint64_t index = 0;
  std::uint64_t steps = 0;
  std::uint64_t schedule_hash = 0;  // of the decisions, in order
  std::uint64_t end_state = 0;      // heddle::state_hash at the end, if has_end_state
  std::uint32_t max_enabled = 0;
  std::uint32_t atomic_steps = 0;  // see statistics::atomic_steps
  std::uint32_t memory_steps = 0;
  bool has_end_state = false;
  bool hit_max_steps = false;
  bool bug = false;
  bool weak_order = false;  // an atomic named an order weaker than seq_cst
  bool plain_unseen = false;  // see statistics::plain_unseen_iterations
  bool sc_in_run_order = false;  // see statistics::sc_in_run_order_iterations
};

// A bug report, formatted the first time it is read (src/runner/report_text.cpp):
// a run that finds a bug spends nothing on text nobody reads
// (docs/performance.md). The runner reads it when it prints the report
// (options::print_report) or saves it in a summary; code reads it like the
// std::string it converts to. Copies share the text; reading is thread-safe.
class report_text {
 public:
  report_text() = default;
  report_text(std::string text);  // NOLINT(google-explicit-constructor): a formatted report
  report_text(const char* text) : report_text(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  // `format` runs once, when some copy is first read.
  static report_text deferred(std::function<std::string()> format);

  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  const char* c_str() const { return str().c_str(); }
  bool empty() const { return str().empty(); }
  std::size_t size() const { return str().size(); }
  std::size_t find(std::string_view what, std::size_t from = 0) const { return str().find(what, from); }
  std::size_t find(char what, std::size_t from = 0) const { return str().find(what, from); }
  // Whether the text has been formatted yet (what the bug path's tests check).
  bool formatted() const noexcept;
  friend bool operator==(const report_text& a, std::string_view b) { return a.str() == b; }
  friend std::ostream& operator<<(std::ostream& out, const report_text& r);

 private:
  struct state;
  std::shared_ptr<state> state_;
};

// The bugs of one signature (kind + source location + message) in a run.
struct bug_group {
  heddle::bug bug;          // its first occurrence
  std::string signature;
  std::uint64_t count = 0;  // iterations that ended with it
  std::uint64_t first_iteration = 0;
  heddle::trace trace;            // the first occurrence, as recorded
  heddle::trace minimized_trace;  // what was saved: the recorded trace after minimization
  std::string trace_file;         // where minimized_trace was written, if it was
  report_text report;             // the human-readable report of the first occurrence
};

struct result {
  // The first bug found, with its traces and report (the first of `bugs`).
  std::optional<heddle::bug> bug;
  heddle::trace trace;      // the failing iteration's trace (empty without a bug)
  heddle::trace minimized_trace;  // the trace saved for it (after minimization)
  std::string trace_file;   // where the saved trace was written, if it was
  report_text report;       // the human-readable bug report (formatted when first read)
  // Every bug signature found, in the order found: one with stop_on_first_bug,
  // all of them with stop_on_first_bug = false (--explore).
  std::vector<bug_group> bugs;
  statistics stats;
  // Every iteration run, by index, when options::record_iterations is set.
  std::vector<iteration_record> iterations;
  bool interrupted = false;  // SIGINT or SIGTERM ended the run early
  // Set when a replay stopped because the program did something other than the
  // trace recorded (a source of nondeterminism the test does not control).
  std::optional<std::string> divergence;
  explicit operator bool() const noexcept { return !bug && !divergence; }
  // One line: "passed: explored all 21 schedules (verified)", "passed 35
  // iterations, all cut at --max-steps 20000: ...", "bug: ...". A pass names
  // what it did not cover (statistics::caveats).
  std::string verdict() const;
};

// The identity of the running test, used in trace headers and output paths.
struct test_identity {
  std::string test = "explore";  // "suite.name"
  std::string program;           // path of the binary, for the replay command
};

// Runs `body` as operation 1 of each iteration. Throws heddle::usage_error for a
// bad option (an unknown strategy spec, an unreadable replay trace).
result explore(const options& opts, std::function<void()> body, const test_identity& id = {});

class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ends the iteration with an assertion bug; outside control prints and aborts.
[[noreturn]] void assertion_failed(std::string message,
                                   std::source_location loc = std::source_location::current());

}  // namespace heddle

#define HEDDLE_ASSERT(...)                                                  \
  do {                                                                      \
    if (!static_cast<bool>(__VA_ARGS__))                                    \
      ::heddle::assertion_failed("assertion failed: " #__VA_ARGS__);        \
  } while (false)

#define HEDDLE_ASSERT_MSG(cond, msg)                                        \
  do {                                                                      \
    if (!static_cast<bool>(cond)) ::heddle::assertion_failed(msg);          \
  } while (false)
