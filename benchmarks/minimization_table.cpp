// minimization_table: for every bug-suite program, the first bug its own
// strategy finds at the default seed, minimized; prints the Markdown table of
// docs/reports.md (original versus minimized preemptions and lengths, and the
// effort the minimizer spent). Every minimized trace is also replayed with the
// replay strategy, and the row says whether it reproduced the same bug.
//
//   build/benchmarks/minimization_table [--strategy SPEC]
//
// Without --strategy each program runs under the strategy its table entry
// names (random or pct:3). Exit status 1 when a program's bug was not found or
// a minimized trace did not replay.
#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "programs.hpp"
#include "runner/minimize.hpp"

int main(int argc, char** argv) {
  std::string forced;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--strategy" && i + 1 < argc) {
      forced = argv[++i];
    } else {
      std::fprintf(stderr, "minimization_table: unknown argument '%s' (usage: minimization_table [--strategy SPEC])\n",
                   arg.c_str());
      return 2;
    }
  }
  bool all_good = true;
  std::puts("| program | bug | strategy | preemptions | steps | guided runs | ms | replays |");
  std::puts("|---|---|---|---|---|---|---|---|");
  for (const heddle_bugs::program& p : heddle_bugs::all_programs()) {
    const std::string strategy = forced.empty() ? std::string(p.strategy) : forced;
    heddle::options o = heddle_bugs::options_for(p, strategy, p.iterations);
    const heddle::result found = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
    if (!found.bug) {
      fmt::print("| {} | not found | {} | | | | | |\n", p.name, strategy);
      all_good = false;
      continue;
    }
    const heddle::detail::minimization m = heddle::detail::minimize(p.buggy, found.trace);
    // The minimized trace must replay exactly, as `heddle replay` would.
    heddle::options replay = o;
    replay.replay = "";
    bool replays = false;
    {
      const std::string path = fmt::format("/tmp/heddle-minimization-table-{}.json", p.name);
      if (std::FILE* f = std::fopen(path.c_str(), "w")) {
        const std::string text = heddle::to_json(m.best.trace);
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
        replay.replay = path;
        const heddle::result again = heddle::explore(replay, p.buggy, heddle_bugs::identity_of(p));
        replays = again.bug && !again.divergence && heddle::detail::same_bug(*again.bug, *found.bug);
        std::remove(path.c_str());
      }
    }
    all_good = all_good && replays && m.best.preemptions <= m.original.preemptions;
    fmt::print("| {} | {} | {} | {} → {} | {} → {} | {} | {:.1f} | {} |\n", p.name, heddle::to_string(found.bug->kind),
               strategy, m.original.preemptions, m.best.preemptions, m.original.trace.steps.size(),
               m.best.trace.steps.size(), m.runs, std::chrono::duration<double, std::milli>(m.elapsed).count(),
               m.minimized ? (replays ? "yes" : "NO") : "not minimized: " + m.reason);
  }
  return all_good ? 0 : 1;
}
