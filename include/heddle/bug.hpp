// What a found bug is: its kind, message, where it happened.
#pragma once

#include <cstdint>
#include <optional>
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

}  // namespace heddle
