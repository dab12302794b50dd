// Writes a bug's trace file as the runner writes it (the minimized trace with
// its annotations, the original under "original") for the report tests: the
// first bug of a bug-suite program under its own strategy, minimized.
//
//   report_fixture <program-name> <out.json>
#include <cstdio>
#include <fstream>
#include <string>

#include "heddle/explore.hpp"
#include "programs.hpp"
#include "runner/minimize.hpp"
#include "runner/saved_bug.hpp"
#include "strategies/strategies.hpp"
#include "backends/fiber_backend.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: report_fixture <bug-suite program> <out.json>\n");
    return 2;
  }
  for (const heddle_bugs::program& p : heddle_bugs::all_programs()) {
    if (p.name != argv[1]) continue;
    const heddle::result found =
        heddle::explore(heddle_bugs::options_for(p, p.strategy, p.iterations), p.buggy, heddle_bugs::identity_of(p));
    if (!found.bug) {
      std::fprintf(stderr, "report_fixture: no bug found in %s\n", argv[1]);
      return 1;
    }
    // The engine's record of the failing iteration, as the runner has it.
    heddle::detail::fiber_backend fibers(256 * 1024);
    heddle::detail::engine engine(fibers, {found.trace.header.max_steps, found.trace.header.fail_on_max_steps,
                                           found.trace.header.spurious_wakeups,
                                           found.trace.header.spurious_cas_failures});
    heddle::detail::replay_strategy replay(found.trace.steps);
    replay.begin_iteration(found.trace.header.iteration, 0);
    const heddle::detail::iteration_outcome& outcome = engine.run(replay, p.buggy);
    std::ofstream(argv[2]) << heddle::detail::finalize_bug(p.buggy, found.trace, outcome).file_text();
    return 0;
  }
  std::fprintf(stderr, "report_fixture: no bug-suite program named %s\n", argv[1]);
  return 2;
}
