// Parsing the names of engine enumerations back (traces store names).
#pragma once

#include <optional>
#include <string_view>

#include "heddle/model.hpp"

namespace heddle::detail {
std::optional<point_kind> parse_point_kind(std::string_view name) noexcept;
inline constexpr std::size_t point_kind_count = 19;
}  // namespace heddle::detail
