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
#include <optional>
#include <source_location>
#include <string>

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
  std::uint64_t buggy_iterations = 0;  // iterations that ended with a bug
  std::uint64_t max_enabled = 0;     // most operations enabled at one decision
  std::chrono::nanoseconds elapsed{0};
  bool exhausted = false;  // the strategy explored its whole space
  std::uint64_t schedules = 0;  // complete schedules a systematic strategy (dfs, dpor) explored
  double iterations_per_second() const;
};

struct result {
  std::optional<heddle::bug> bug;
  heddle::trace trace;      // the failing iteration's trace (empty without a bug)
  std::string trace_file;   // where the trace was written, if it was
  std::string report;       // the human-readable bug report
  statistics stats;
  // Set when a replay stopped because the program did something other than the
  // trace recorded (a source of nondeterminism the test does not control).
  std::optional<std::string> divergence;
  explicit operator bool() const noexcept { return !bug && !divergence; }
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
