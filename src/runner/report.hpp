// The text bug report (DESIGN.md section 12): kind, message, operation and
// source location, the interleaving as one column per operation, the one-line
// trace, the trace file, and the command that replays it. With a minimized
// trace: original versus minimized preemptions and steps, and the minimized
// interleaving, trace and replay command.
#pragma once

#include <string>

#include "engine/engine.hpp"
#include "heddle/explore.hpp"
#include "runner/timeline.hpp"

namespace heddle::detail {

struct report_context {
  std::string test;
  std::string program;
  std::string trace_file;
  std::uint64_t iteration = 0;
  std::uint64_t iterations_run = 0;
  bool replaying = false;
  std::string html_file;       // the HTML report, when one was written
  // Push-button runs: the commands that replay and debug the bug, printed
  // instead of the test binary's.
  std::string replay;
  std::string debug;
};

std::string format_report(const bug& b, const trace& t, const iteration_outcome& outcome,
                          const report_context& ctx);
// The same with the minimized trace, when there is one: the report then says
// how much smaller it is and shows its interleaving and its one-line trace
// (ctx.trace_file is then the minimized trace's file).
std::string format_report(const bug& b, const timeline& original, const timeline* minimized,
                          const report_context& ctx);
// The interleaving table: one row per step, one column per operation.
std::string format_interleaving(const timeline& t);
std::string replay_command(const report_context& ctx);
// The spurious events (wake-ups, compare_exchange_weak failures) a schedule
// took, for the bug's summary line: "after a spurious wake-up at step 12",
// or empty when it took none. A bug after one may be the program's (POSIX
// allows them) but not the one it meets in production.
std::string spurious_note(const std::vector<trace_step>& steps);
// `text` as one word of a shell command line, quoted when needed.
std::string shell_word(const std::string& text);

}  // namespace heddle::detail
