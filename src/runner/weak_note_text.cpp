// The text of a weak-memory note in a report row (weak_note_text.hpp).
#include "runner/weak_note_text.hpp"

#include <cstring>

#include <fmt/format.h>

namespace heddle::detail {
namespace {

std::string_view order_name(std::memory_order o) {
  switch (o) {
    case std::memory_order_relaxed: return "relaxed";
    case std::memory_order_consume: return "consume";
    case std::memory_order_acquire: return "acquire";
    case std::memory_order_release: return "release";
    case std::memory_order_acq_rel: return "acq_rel";
    case std::memory_order_seq_cst: return "seq_cst";
  }
  return "?";
}

std::string where_text(const std::source_location& where) {
  if (where.line() == 0) return {};
  const std::string_view file = where.file_name();
  const auto slash = file.rfind('/');
  return fmt::format(" at {}:{}", slash == std::string_view::npos ? file : file.substr(slash + 1), where.line());
}

// "the store of 7 by op 2 (producer) at mp.cpp:10"; "the initial value".
std::string store_text(operation_id by, const std::source_location& where, const std::string& value,
                       const std::function<std::string(operation_id)>& operation_title) {
  if (by == 0) return value.empty() ? "the initial value" : fmt::format("the initial value {}", value);
  return fmt::format("the store{} by {}{}", value.empty() ? "" : " of " + value, operation_title(by),
                     where_text(where));
}

}  // namespace

std::string weak_note_text(const weak_note& n, const std::string& newest_value,
                           const std::function<std::string(operation_id)>& operation_title) {
  const std::string newest = store_text(n.newest_by, n.newest_where, newest_value, operation_title);
  if (n.placed) {
    if (n.newer == 1) return fmt::format("placed before {} in modification order", newest);
    return fmt::format("placed before {} newer stores in modification order, the newest {}", n.newer, newest);
  }
  const std::string read = n.read_by == 0 ? "the initial value" : store_text(n.read_by, n.read_where, "", operation_title);
  if (n.newer == 1) return fmt::format("({}) from {}; {} was not yet visible", order_name(n.order), read, newest);
  return fmt::format("({}) from {}; {} newer stores were not yet visible, the newest {}", order_name(n.order), read,
                     n.newer, newest);
}

std::uint64_t weak_note_value_bits(const weak_note& n, value_kind kind) {
  const std::uint64_t bits = n.newest_bits;
  if (n.newest_size == 0 || n.newest_size >= 8) return bits;
  const unsigned width = n.newest_size * 8u;
  if (kind == value_kind::signed_integer && (bits >> (width - 1) & 1u) != 0) return bits | (~std::uint64_t{0} << width);
  if (kind == value_kind::floating && n.newest_size == sizeof(float)) {
    float f = 0;
    std::memcpy(&f, &bits, sizeof f);
    const double d = f;
    std::uint64_t wide = 0;
    std::memcpy(&wide, &d, sizeof wide);
    return wide;
  }
  return bits;
}

}  // namespace heddle::detail
