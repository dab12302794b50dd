// What one `heddle run` is, fixed before its first iteration: the options
// (from the HEDDLE_* variables the CLI sets), the strategy, or the trace a
// replay follows, the program's path and arguments, the trace header's
// constants; and what a push-button trace records beyond that header, under
// its "options" (the --check command, address randomization, where the
// clocks started), which a replay reads back and a divergence's likely cause
// consults. Part of the fork server (rt/fork_server.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "heddle/options.hpp"
#include "heddle/trace.hpp"
#include "rt/fork_child.hpp"
#include "rt/posix_clock.hpp"
#include "strategies/strategies.hpp"

// Internal to libheddle-rt.
#pragma GCC visibility push(hidden)
namespace heddle::rt {

// What one run is: the options, the strategy, the trace header's constants.
struct run_plan {
  options opts;
  std::unique_ptr<detail::strategy> chosen;
  detail::replay_strategy* replaying = nullptr;
  std::uint64_t first_iteration = 0;
  std::optional<bug> expected;
  std::string program_path;
  std::vector<std::string> arguments;
  std::string test;
  // heddle run --check: judges each iteration's output (output_check.hpp).
  // A replay takes it from its trace.
  std::string check;
  // The iteration running, and the one whose exit status became the
  // expected one (opts.expect_exit), when it was learnt rather than given.
  std::uint64_t current_iteration = 0;
  std::optional<std::uint64_t> exit_learnt_at;
  // Why the race detector is off when make_plan turned it off (a library
  // whose synchronization the instrumentation cannot see), for the verdict's
  // "not checked"; empty otherwise.
  std::string races_off;
};

// What a push-button trace records beyond the trace header, under its
// "options": the --check command, and whether the program ran with address
// randomization (heddle run turns it off, so that a program that hashes or
// orders by address replays; docs/pushbutton.md).
struct run_options {
  std::string check;
  std::string address_randomization;  // "off", "on"; empty in traces written before it was recorded
  std::optional<clock_bases> clocks;  // where the program's clocks started (posix_clock.hpp)
};

// The options a push-button trace file records; empty for a compact trace.
run_options run_options_of(const std::string& trace_file);

// "off" or "on": this process's, which the fork server's children inherit.
std::string address_randomization();

// The likely cause of a divergence, as far as the fork server can see it.
std::string divergence_cause(const std::string& trace_file, std::uint32_t inputs);

// The plan of this run, from the environment (and the trace a replay follows).
run_plan make_plan(const program_entry& program);

// The header of the trace of iteration `iteration`.
trace_header header_of(const run_plan& plan, std::uint64_t iteration);

}  // namespace heddle::rt
#pragma GCC visibility pop
