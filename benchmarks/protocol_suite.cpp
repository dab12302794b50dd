// protocol_suite: the share of buggy iterations of every strategy on every
// protocol of examples/protocols (docs/actors.md, "Protocol suite"), beside
// Nekara's Table VI, and the iterations per second of each fixed twin under the
// default strategy (docs/performance.md, "Actors (issue 18)").
//
// For each protocol and strategy: the buggy twin runs for N iterations at the
// default seed without stopping at a bug (--explore), so the share of buggy
// iterations says how often the strategy lands on the bug and the first buggy
// iteration how soon; any bug other than the seeded one is reported, since it
// would make the share meaningless. Then each fixed twin runs N iterations
// under the default strategy, timed.
//
// Output is Markdown on stdout. Usage:
//   protocol_suite [--iterations=N] [--strategies=a,b,...] [--protocols=substring] [--fixed]
// --fixed also times the fixed twins (iterations/s; machine dependent).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "heddle/explore.hpp"
#include "protocols.hpp"

namespace {

struct settings {
  std::uint64_t iterations = 10000;
  std::vector<std::string> strategies{"random", "pct:3", "pctt:3", "pos", "ql", "surw", "portfolio"};
  std::string protocols;
  bool fixed = false;
};

std::vector<std::string> split(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const auto comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return out;
}

int usage(std::string_view arg) {
  std::fprintf(stderr,
               "protocol_suite: unknown argument '%.*s'. Usage: protocol_suite [--iterations=N] "
               "[--strategies=a,b] [--protocols=substring] [--fixed]\n",
               static_cast<int>(arg.size()), arg.data());
  return 2;
}

struct cell {
  double share = 0;              // percent of iterations with the bug
  std::uint64_t first = 0;       // 1-based iteration of the first bug; 0: none
  std::string other;             // a bug that is not the seeded one, if any
  double seconds = 0;
};

cell measure(const heddle_protocols::protocol& p, const std::string& strategy, std::uint64_t iterations) {
  heddle::options o = heddle_protocols::options_for(p, strategy, iterations);
  o.stop_on_first_bug = false;
  o.minimize = false;
  const auto t0 = std::chrono::steady_clock::now();
  const heddle::result r = heddle::explore(o, p.buggy, heddle_protocols::identity_of(p));
  cell c;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.share = r.stats.iterations == 0 ? 0 : 100.0 * static_cast<double>(r.stats.buggy_iterations) /
                                              static_cast<double>(r.stats.iterations);
  for (const heddle::bug_group& g : r.bugs) {
    if (c.first == 0 || g.first_iteration + 1 < c.first) c.first = g.first_iteration + 1;
    if (g.bug.kind != p.kind || g.bug.message.find(p.message) == std::string::npos) c.other = g.bug.message;
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto eq = arg.find('=');
    const std::string_view key = arg.substr(0, eq);
    const std::string value(eq == std::string_view::npos ? std::string_view{} : arg.substr(eq + 1));
    if (key == "--iterations") {
      char* end = nullptr;
      s.iterations = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || s.iterations == 0) return usage(arg);
    } else if (key == "--strategies") {
      s.strategies = split(value);
    } else if (key == "--protocols") {
      s.protocols = value;
    } else if (key == "--fixed" && eq == std::string_view::npos) {
      s.fixed = true;
    } else {
      return usage(arg);
    }
  }

  std::printf("Buggy iterations over %llu iterations per cell (default seed; first buggy iteration in brackets)\n\n",
              static_cast<unsigned long long>(s.iterations));
  std::printf("| protocol | Nekara Table VI |");
  for (const std::string& st : s.strategies) std::printf(" `%s` |", st.c_str());
  std::printf("\n|---|---|");
  for (std::size_t i = 0; i < s.strategies.size(); ++i) std::printf("---|");
  std::printf("\n");
  std::vector<std::string> notes;
  for (const heddle_protocols::protocol& p : heddle_protocols::all_protocols()) {
    if (p.name.find(s.protocols) == std::string_view::npos) continue;
    std::printf("| %.*s | %.2f %% |", static_cast<int>(p.name.size()), p.name.data(), p.nekara_share);
    std::fflush(stdout);
    for (const std::string& st : s.strategies) {
      const cell c = measure(p, st, s.iterations);
      if (c.first == 0) std::printf(" 0 %% (-) |");
      else std::printf(" %.2f %% (%llu) |", c.share, static_cast<unsigned long long>(c.first));
      std::fflush(stdout);
      if (!c.other.empty()) notes.push_back(std::string(p.name) + " under " + st + ": another bug: " + c.other);
      std::fprintf(stderr, "%.*s %s: %.1f s\n", static_cast<int>(p.name.size()), p.name.data(), st.c_str(), c.seconds);
    }
    std::printf("\n");
  }
  for (const std::string& n : notes) std::printf("\n%s\n", n.c_str());

  if (!s.fixed) return 0;
  std::printf("\nFixed twins under the default strategy, %llu iterations each\n\n",
              static_cast<unsigned long long>(s.iterations));
  std::printf("| protocol | iterations/s | mean steps | bug |\n|---|---|---|---|\n");
  for (const heddle_protocols::protocol& p : heddle_protocols::all_protocols()) {
    if (p.name.find(s.protocols) == std::string_view::npos) continue;
    const heddle::result r = heddle::explore(heddle_protocols::options_for(p, heddle::options{}.strategy, s.iterations),
                                             p.fixed, heddle_protocols::identity_of(p));
    std::printf("| %.*s | %.0f | %.1f | %s |\n", static_cast<int>(p.name.size()), p.name.data(),
                r.stats.iterations_per_second(), r.stats.mean_steps(), r.bug ? r.bug->message.c_str() : "none");
    std::fflush(stdout);
  }
  return 0;
}
