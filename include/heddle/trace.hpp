// Traces (DESIGN.md section 5): the header that pins down how an iteration ran,
// plus every decision. Two lossless encodings: versioned JSON, and a compact
// one-line string ("heddle:1:...") that fits in a bug report or on a command line.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "heddle/bug.hpp"
#include "heddle/model.hpp"
#include "heddle/options.hpp"

namespace heddle {

inline constexpr int trace_format_version = 1;

enum class step_kind : std::uint8_t {
  schedule,     // `value` is the operation chosen to run
  choose_bool,  // `value` is 0 or 1
  choose_int,   // `value` is the chosen integer
};

struct trace_step {
  step_kind kind = step_kind::schedule;
  point_kind point = point_kind::start;  // the chosen operation's pending point
  object_id object = 0;                  // the object that point touches
  std::uint64_t value = 0;
  friend bool operator==(const trace_step&, const trace_step&) = default;
};

struct trace_header {
  int format_version = trace_format_version;
  std::string heddle_version;
  std::string program;  // absolute path of the test binary, when known
  std::string test;     // "suite.name"
  std::string strategy;
  std::uint64_t seed = 0;       // the run's seed
  std::uint64_t iteration = 0;  // index of the iteration within the run
  std::uint64_t max_steps = 0;
  bool fail_on_max_steps = false;
  bool spurious_wakeups = true;
  bool spurious_cas_failures = true;
  memory_policy memory = memory_policy::shared;  // instrumented accesses that are points
  bool detect_races = true;
  heddle::memory_model memory_model = heddle::memory_model::sc;  // how weak atomics behaved
  std::string backend = "fibers";  // where it was recorded; it replays on either
  // The run's --iteration-timeout in milliseconds (0: none), so a replay of a
  // hang gives up after the same time and reports the hang again.
  std::uint64_t iteration_timeout_ms = 0;
  // Push-button traces (heddle run): the program's arguments after its path,
  // so a replay starts the same process again. Empty for tests.
  std::vector<std::string> arguments;
  // Push-button traces: the exit status the program has when it has no bug
  // (--expect-exit, or learnt from the run's first iteration that exited);
  // -1 when none was known. A replay reports the same exit_code bug with it.
  int expect_exit = -1;
  // The suppressions file the run left races out by (options::suppressions),
  // as given; a replay leaves out the same ones. Empty: none.
  std::string suppressions;
  friend bool operator==(const trace_header&, const trace_header&) = default;
};

struct trace {
  trace_header header;
  std::vector<trace_step> steps;
  // The bug this trace leads to, when it was recorded from a failing
  // iteration; replay checks that it reproduces.
  std::optional<heddle::bug> found;
  friend bool operator==(const trace&, const trace&) = default;
};

// A trace that cannot be read: the message names the problem in one line.
class trace_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string to_json(const trace& t);
trace trace_from_json(std::string_view text);
std::string to_compact(const trace& t);
trace trace_from_compact(std::string_view text);
// Reads either encoding from a file.
trace load_trace(const std::string& path);

}  // namespace heddle
