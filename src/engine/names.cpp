// Names of the engine's enumerations, as they appear in reports and traces.
// Trace files store these names, so they must never change meaning.
#include <array>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "engine/names.hpp"
#include "heddle/bug.hpp"
#include "heddle/model.hpp"
#include "heddle/options.hpp"

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
    "task",  "channel",   "inbox",  "timer",        "monitor",
};
constexpr std::array bug_names{
    "assertion", "uncaught_exception", "crash", "deadlock", "livelock", "api_misuse", "stack_overflow",
    "data_race", "hang",               "exit_code",
    "thread_safety_violation", "liveness", "unhandled_event",
};
constexpr std::array memory_names{"shared", "all", "none"};
constexpr std::array memory_model_names{"sc", "rc11"};

// The name of enumerator `value` in `names`, "unknown" past the end; and back.
template <std::size_t n, class E>
std::string_view name_of(const std::array<const char*, n>& names, E value) noexcept {
  const auto i = static_cast<std::size_t>(value);
  return i < names.size() ? names[i] : "unknown";
}
template <class E, std::size_t n>
std::optional<E> value_named(const std::array<const char*, n>& names, std::string_view name) noexcept {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}
}  // namespace

std::string_view to_string(point_kind kind) noexcept { return name_of(point_names, kind); }
std::string_view to_string(object_kind kind) noexcept { return name_of(object_names, kind); }
std::string_view to_string(bug_kind kind) noexcept { return name_of(bug_names, kind); }
std::string_view to_string(memory_policy policy) noexcept { return name_of(memory_names, policy); }
std::string_view to_string(memory_model model) noexcept { return name_of(memory_model_names, model); }

std::optional<bug_kind> parse_bug_kind(std::string_view name) noexcept { return value_named<bug_kind>(bug_names, name); }
std::optional<memory_policy> parse_memory_policy(std::string_view name) noexcept {
  return value_named<memory_policy>(memory_names, name);
}
std::optional<memory_model> parse_memory_model(std::string_view name) noexcept {
  return value_named<memory_model>(memory_model_names, name);
}

std::string detail::value_text(std::uint64_t bits, value_kind kind) {
  switch (kind) {
    case value_kind::none: return {};
    case value_kind::boolean: return bits != 0 ? "true" : "false";
    case value_kind::signed_integer: return fmt::format("{}", static_cast<std::int64_t>(bits));
    case value_kind::unsigned_integer: return fmt::format("{}", bits);
    case value_kind::pointer: return bits == 0 ? "nullptr" : fmt::format("{:#x}", bits);
    case value_kind::floating: {
      double d = 0;
      std::memcpy(&d, &bits, sizeof d);
      return fmt::format("{}", d);
    }
    case value_kind::bits: return fmt::format("{:#x}", bits);
  }
  return {};
}

std::string bug::signature() const {
  return fmt::format("{}|{}:{}|{}", to_string(kind), where.file, where.line, message);
}

}  // namespace heddle

namespace heddle::detail {
std::optional<point_kind> parse_point_kind(std::string_view name) noexcept {
  return value_named<point_kind>(point_names, name);
}
static_assert(point_names.size() == point_kind_count);
}  // namespace heddle::detail
