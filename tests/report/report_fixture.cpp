// Writes a bug's trace file as the runner writes it (annotations, and the
// minimized trace under "minimized") for the report tests: the first bug of a
// bug-suite program under its own strategy, minimized.
//
//   report_fixture <program-name> <out.json>
#include <cstdio>
#include <fstream>
#include <string>

#include "heddle/explore.hpp"
#include "programs.hpp"
#include "runner/minimize.hpp"
#include "runner/timeline.hpp"

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
    const std::vector<heddle::detail::timeline> timelines =
        heddle::detail::timelines_of(heddle::detail::minimize(p.buggy, found.trace));
    std::ofstream(argv[2]) << heddle::detail::timeline_json(timelines.front(),
                                                            timelines.size() > 1 ? &timelines.back() : nullptr);
    return 0;
  }
  std::fprintf(stderr, "report_fixture: no bug-suite program named %s\n", argv[1]);
  return 2;
}
