// What a report of `heddle run` shows of an iteration, from what the child
// mirrored into the fork channel: the operations' names (their own, else
// their threads' start routines, symbolized in the fork server: the child's
// code is its own), the report's view of the steps, the command that replays
// a trace under gdb, and the bug files under --out. Part of the fork server
// (rt/fork_server.hpp).
#pragma once

#include <filesystem>
#include <string>

#include "engine/engine.hpp"
#include "rt/fork_channel.hpp"
#include "rt/iteration_server.hpp"
#include "rt/run_plan.hpp"

// Internal to libheddle-rt.
#pragma GCC visibility push(hidden)
namespace heddle::rt {

// Writes `text` to the first free <dir>/bug-N.json; returns its path.
std::string write_bug_file(const std::filesystem::path& dir, const std::string& text);

// An operation's name, or empty; "operation N (name)", or what runs when no
// operation does.
std::string operation_name(const fork_channel& ch, operation_id op);
std::string describe_operation(const fork_channel& ch, operation_id op);

// The report's view of the iteration.
detail::iteration_outcome outcome_for_report(const iteration_result& r, const fork_channel& ch);

// gdb on the program, in its own process, replaying `trace_file`.
std::string gdb_command(const run_plan& plan, const std::string& trace_file);

}  // namespace heddle::rt
#pragma GCC visibility pop
