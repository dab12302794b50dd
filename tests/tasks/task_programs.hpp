// The task programs: small coroutine programs with a bug each, and a fixed
// twin each, as tests/bugs/programs.hpp is for threads.
//
// Contract of every entry: exploring `buggy` with the default strategy
// (options{} 's "portfolio") finds a bug of `kind` whose message contains
// `message` within 10,000 iterations at the default seed; exploring `fixed`
// for 2,000 iterations finds nothing; the found bug's trace replays it 100
// times out of 100. Bodies keep their state local.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "heddle/bug.hpp"
#include "heddle/explore.hpp"

namespace heddle_tasks {

struct program {
  std::string_view name;
  std::string_view description;
  void (*buggy)();
  void (*fixed)();
  heddle::bug_kind kind;
  std::string_view message;  // a substring of the bug's message
};

const std::vector<program>& all_programs();

// Quiet options: no report, no trace file.
heddle::options quiet(std::uint64_t iterations, std::string_view strategy = "portfolio");

// Coyote's running example (the text): two tasks log 50 messages
// each, one per yield; the "bug" is that every message of a precedes b's
// first. PCT^t with one chain priority finds it about half the time.
void running_example();

}  // namespace heddle_tasks
