// lincheck_defaults: the measurement behind lincheck's default strategy,
// scenarios and runs per scenario (docs/lincheck.md, "Why these defaults").
// For each candidate default, each buggy example of examples/lincheck (and
// the Treiber stack with ABA) is checked with the candidate's options and
// seeds 1..S: how many seeds find the bug, after how many runs (median over
// the seeds that found it: the runner's iteration, as every scenario is a
// choice of each run) and the wall time (median); each fixed twin is checked once, for the time a
// passing test costs (the whole budget). Not run in CI; a few minutes.
//
//   lincheck_defaults [seeds=10] [candidate-filter]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "map.hpp"
#include "queue.hpp"
#include "stack.hpp"
#include "treiber.hpp"

namespace {

using heddle::lincheck::declaration;

struct candidate {
  const char* strategy;
  std::size_t scenarios;
  std::size_t runs;
};

struct example {
  const char* name;
  declaration buggy;
  declaration fixed;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

template <class T>
T median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t seeds = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10;
  const std::string filter = argc > 2 ? argv[2] : "";
  const std::vector<candidate> candidates = {
      {"pct:3", 100, 50},  {"random", 100, 50},  {"pos", 100, 50},  {"portfolio", 100, 50},
      {"pct:3", 200, 100}, {"pos", 200, 100},    {"portfolio", 200, 100},
  };
  const std::vector<example> examples = {
      {"stack", examples::stack_spec<examples::racy_stack>(), examples::stack_spec<examples::fixed_stack>()},
      {"queue", examples::queue_spec<examples::racy_queue>(), examples::queue_spec<examples::fixed_queue>()},
      {"map", examples::map_spec<examples::racy_map>(), examples::map_spec<examples::fixed_map>()},
      {"treiber (ABA)", examples::treiber_spec<examples::aba_stack>(), examples::treiber_spec<examples::tagged_stack>()},
  };
  std::printf("| candidate | example | found (of %llu seeds) | runs to the bug (median) | bug: s (median) | fixed twin: s |\n",
              static_cast<unsigned long long>(seeds));
  std::printf("|---|---|---|---|---|---|\n");
  for (const candidate& c : candidates) {
    const std::string label = std::string(c.strategy) + " " + std::to_string(c.scenarios) + "x" + std::to_string(c.runs);
    if (!filter.empty() && label.find(filter) == std::string::npos) continue;
    for (const example& e : examples) {
      std::size_t found = 0;
      std::vector<std::uint64_t> at;
      std::vector<double> times;
      for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        declaration d = e.buggy;
        d.opts.strategy = c.strategy;
        d.opts.scenarios = c.scenarios;
        d.opts.iterations = c.runs;
        d.opts.seed = seed;
        d.opts.minimize = false;  // the search only
        d.opts.print_report = false;
        const auto started = std::chrono::steady_clock::now();
        const auto r = heddle::lincheck::check(d);
        times.push_back(seconds_since(started));
        if (r.failure) {
          ++found;
          at.push_back(r.failure->iteration.value_or(0) + 1);
        }
      }
      declaration f = e.fixed;
      f.opts.strategy = c.strategy;
      f.opts.scenarios = c.scenarios;
      f.opts.iterations = c.runs;
      f.opts.print_report = false;
      const auto started = std::chrono::steady_clock::now();
      const auto passed = heddle::lincheck::check(f);
      const double fixed_seconds = seconds_since(started);
      std::printf("| %s | %s | %zu | %s | %.2f | %.2f%s |\n", label.c_str(), e.name, found,
                  found > 0 ? std::to_string(median(at)).c_str() : "-", median(times), fixed_seconds,
                  passed ? "" : " (FAILED)");
      std::fflush(stdout);
    }
  }
}
