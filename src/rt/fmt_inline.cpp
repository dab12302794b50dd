// The one out-of-line function of {fmt} that libheddle-rt calls
// (fmt::vformat, behind every fmt::format), compiled into the library from
// {fmt}'s header-only form instead of linking libfmt.so. Every process that
// loads libheddle-rt then maps one library fewer, and the fork server's fork
// copies five mappings fewer per iteration (docs/performance.md).
//
// The definition is the header's own inline one; taking its address here makes
// the compiler emit it, with hidden visibility (src/rt/CMakeLists.txt), so it
// serves the library's other objects without being exported to the program.
#undef FMT_SHARED  // set by fmt::fmt's target: it would export the definition
#define FMT_HEADER_ONLY
#include <fmt/format.h>

#include <string>

namespace heddle::rt {
[[gnu::used]] std::string (*const fmt_vformat)(fmt::string_view, fmt::format_args) = &fmt::vformat;
}  // namespace heddle::rt
