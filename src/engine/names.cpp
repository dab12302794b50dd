// Names of the engine's enumerations, as they appear in reports and traces.
// Trace files store these names, so they must never change meaning.
#include <array>
#include <utility>

#include <fmt/format.h>

#include "engine/names.hpp"
#include "heddle/bug.hpp"
#include "heddle/model.hpp"

namespace heddle {

namespace {
constexpr std::array point_names{
    "start", "finish", "join",  "acquire", "release", "acquire_shared", "release_shared",
    "wait",  "signal", "read",  "write",   "rmw",     "fence",          "yield",
    "sleep", "choose", "send",  "receive", "user",
};
constexpr std::array object_names{
    "none",  "operation", "mutex",  "shared_mutex", "condition_variable", "semaphore", "latch",
    "barrier", "atomic",  "once_flag", "future",    "stop_state",         "variable",  "user",
};
constexpr std::array bug_names{
    "assertion", "uncaught_exception", "crash", "deadlock", "livelock", "api_misuse", "stack_overflow",
};
}  // namespace

std::string_view to_string(point_kind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  return i < point_names.size() ? point_names[i] : "unknown";
}

std::string_view to_string(object_kind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  return i < object_names.size() ? object_names[i] : "unknown";
}

std::string_view to_string(bug_kind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  return i < bug_names.size() ? bug_names[i] : "unknown";
}

std::optional<bug_kind> parse_bug_kind(std::string_view name) noexcept {
  for (std::size_t i = 0; i < bug_names.size(); ++i)
    if (bug_names[i] == name) return static_cast<bug_kind>(i);
  return std::nullopt;
}

std::string bug::signature() const {
  return fmt::format("{}|{}:{}|{}", to_string(kind), where.file, where.line, message);
}

}  // namespace heddle

namespace heddle::detail {
std::optional<point_kind> parse_point_kind(std::string_view name) noexcept {
  for (std::size_t i = 0; i < point_names.size(); ++i)
    if (point_names[i] == name) return static_cast<point_kind>(i);
  return std::nullopt;
}
static_assert(point_names.size() == point_kind_count);
}  // namespace heddle::detail
