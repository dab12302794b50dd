// Parsing the names of engine enumerations back (traces store names), and
// the text of a value a step saw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "heddle/model.hpp"

namespace heddle::detail {
std::optional<point_kind> parse_point_kind(std::string_view name) noexcept;
inline constexpr std::size_t point_kind_count = 19;
// A value an atomic operation saw (step_record::value_seen), as a report
// shows it: "5", "-1", "true", "0x7f3a10" or "nullptr", "2.5", "0x0102"
// (another type's bytes as a little-endian number); "" for value_kind::none.
std::string value_text(std::uint64_t bits, value_kind kind);
}  // namespace heddle::detail
