// What a found bug is: its kind, message, where it happened.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>

#include "heddle/model.hpp"

namespace heddle {

enum class bug_kind : std::uint8_t {
  assertion,
  uncaught_exception,
  crash,
  deadlock,
  livelock,
  api_misuse,
  stack_overflow,
  data_race,  // two accesses, one a write, not ordered by happens-before
  hang,       // push-button: an iteration made no progress within --iteration-timeout
  exit_code,  // push-button: the program exited with a non-zero status (--exit-code-is-bug)
  thread_safety_violation,  // two overlapping calls on one checked container, one a write
  liveness,                 // a liveness monitor stayed hot (end of iteration, or past its temperature)
  unhandled_event,          // a state machine received an event its state neither handles, defers nor ignores
};
std::string_view to_string(bug_kind kind) noexcept;
std::optional<bug_kind> parse_bug_kind(std::string_view name) noexcept;

struct source_position {
  std::string file;
  std::uint32_t line = 0;
  std::string function;
  bool known() const noexcept { return line != 0; }
  friend bool operator==(const source_position&, const source_position&) = default;
};

struct bug {
  bug_kind kind = bug_kind::assertion;
  std::string message;
  operation_id operation = 0;
  std::string operation_name;
  source_position where;
  std::uint64_t step = 0;  // decisions taken before the bug
  // kind + source location + message: identifies "the same bug" across runs.
  std::string signature() const;
  friend bool operator==(const bug&, const bug&) = default;
};

// Reports a bug of `kind` that a check beyond assertions found (a thread-safety
// violation, a liveness monitor, an unhandled event) and ends the iteration by
// unwinding the running operation, as report_misuse does for api_misuse;
// outside control, prints the message and calls std::abort.
[[noreturn]] void report_bug(bug_kind kind, std::string message,
                             std::source_location loc = std::source_location::current());
// The same where throwing is impossible (a destructor): records the bug and
// returns; the iteration ends at the running operation's next scheduling point.
void flag_bug(bug_kind kind, std::string message,
              std::source_location loc = std::source_location::current());

}  // namespace heddle
