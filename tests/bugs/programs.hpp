// The bug suite's table: small concurrent programs written against heddle's
// std-like API, each a buggy body with a fixed twin.
//
// Contract of every entry: exploring `buggy` with `strategy` finds a bug of
// `kind` whose message contains `message` within `iterations` iterations (at
// the default seed); exploring `fixed` for 2,000 iterations under either
// strategy finds nothing. Bodies keep all their state local (no globals), so an
// iteration never sees another's leftovers and every trace replays exactly.
//
// The bug_suite test binary checks these promises; benchmarks and tools link
// the `heddle_bug_programs` library and run every entry under every strategy
// through all_programs() and options_for().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "heddle/bug.hpp"
#include "heddle/explore.hpp"
#include "heddle/options.hpp"

namespace heddle_bugs {

struct program {
  std::string_view name;         // snake_case, unique; "bugs.<name>" is its test id
  std::string_view description;  // one line: what goes wrong
  void (*buggy)();
  void (*fixed)();
  heddle::bug_kind kind;      // what exploring `buggy` reports
  std::string_view message;   // a substring of the report's message
  std::string_view strategy;  // a strategy that finds it: "random" or "pct:3"
  std::uint64_t iterations;   // it finds it within this many iterations
  // Options the program needs besides the defaults (0 = the default max_steps).
  std::uint64_t max_steps = 0;
  bool fail_on_max_steps = false;
};

// Every program of the suite, in a stable order.
const std::vector<program>& all_programs();

// Quiet options (no report printed, no trace file) for running `p` under
// `strategy` for `iterations` iterations, with the options `p` needs.
heddle::options options_for(const program& p, std::string_view strategy, std::uint64_t iterations);

// The test identity traces of `p` carry: "bugs.<name>".
heddle::test_identity identity_of(const program& p);

// The programs, grouped by theme; all_programs() concatenates them.
std::vector<program> memory_programs();     // races on plain shared memory
std::vector<program> lock_programs();       // deadlocks and misuse of mutexes and threads
std::vector<program> condition_programs();  // condition-variable waits
std::vector<program> schedule_programs();    // bugs that need a schedule of a given shape

}  // namespace heddle_bugs
