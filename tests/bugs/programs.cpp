// all_programs(): the themed groups in one table, checked once for unique names.
#include "programs.hpp"

#include <cstdlib>
#include <set>

#include <fmt/format.h>

namespace heddle_bugs {

const std::vector<program>& all_programs() {
  static const std::vector<program> table = [] {
    std::vector<program> all;
    for (auto group : {memory_programs, lock_programs, condition_programs, schedule_programs}) {
      std::vector<program> part = group();
      all.insert(all.end(), part.begin(), part.end());
    }
    std::set<std::string_view> names;
    for (const program& p : all) {
      if (!names.insert(p.name).second) {
        fmt::print(stderr, "heddle_bugs: two programs are named '{}'\n", p.name);
        std::abort();
      }
    }
    return all;
  }();
  return table;
}

heddle::options options_for(const program& p, std::string_view strategy, std::uint64_t iterations) {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = std::string(strategy);
  o.print_report = false;
  o.out.clear();
  if (p.max_steps != 0) o.max_steps = p.max_steps;
  o.fail_on_max_steps = p.fail_on_max_steps;
  return o;
}

heddle::test_identity identity_of(const program& p) {
  return {.test = fmt::format("bugs.{}", p.name), .program = ""};
}

}  // namespace heddle_bugs
