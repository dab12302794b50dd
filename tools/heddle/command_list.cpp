// `heddle list <test-binary> [--filter GLOB]`: the heddle tests a binary holds,
// one per line with the source location of its HEDDLE_TEST.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "test_binary.hpp"

namespace heddle::cli {

int run_list(const list_arguments& args) {
  check_executable(args.program, "test binary");
  std::vector<listed_test> shown;
  for (listed_test& t : list_tests(args.program))
    if (filter_selects(args.filter, t.id)) shown.push_back(std::move(t));
  if (shown.empty()) {
    fmt::print(stderr, "heddle: no heddle test in '{}'{}\n", args.program,
               args.filter.empty() ? "" : fmt::format(" matches '{}'", args.filter));
    return no_bug;
  }
  std::size_t width = 0;
  for (const listed_test& t : shown) width = std::max(width, t.id.size());
  for (const listed_test& t : shown) fmt::print("{:<{}}  {}\n", t.id, width, t.location);
  return no_bug;
}

}  // namespace heddle::cli
