// The fork server (DESIGN.md section 9): `heddle run` starts the program once;
// at the entry to main (rt/startup.cpp) the runtime takes over when HEDDLE_RUN
// is set, and runs one forked child per iteration. The parent keeps the
// strategy across iterations (dfs, dpor, pct's learned step count and ql keep
// learning): the child decides with its inherited copy of the strategy and
// logs every decision in the fork channel, which the parent feeds to its own
// copy (rt/fork_channel.hpp), so a crash, an abort, a failed assert or a hang
// loses nothing.
//
// HEDDLE_RUN=1       explore: iterations, strategy, seed... from HEDDLE_*
//                    variables; bugs are written as traces under --out and
//                    reported as by explore(); exit 0 no bug, 1 bug, 2 usage.
// HEDDLE_RUN=direct  one iteration in this process, no fork (HEDDLE_REPLAY:
//                    a trace to follow), so a debugger sees the program itself.
// HEDDLE_RUN_FORMAT=json   a JSON summary on stdout at the end; with
//                    HEDDLE_RECORD_ITERATIONS=1 it lists every iteration's
//                    [index, schedule hash, steps] under "schedules".
//
// The parent watches each iteration: no decision for --iteration-timeout is a
// hang (the child is killed and the report names what each thread was doing).
// The child's stdout and stderr go to a memfd; the report shows the end of it.
#pragma once

#include "rt/fork_child.hpp"

namespace heddle::rt {

// Runs the program under heddle as HEDDLE_RUN asks; returns main's status.
int run_program(const program_entry& program, const char* mode);


}  // namespace heddle::rt
