// parallel_scaling: iterations per second of the bug suite's programs with
// --parallel 1 and --parallel 2 worker processes (docs/performance.md).
//
//   parallel_scaling [iterations per run, default 20000] [runs, default 5]
//
// Each program's fixed twin runs `iterations` iterations under `random` in
// worker processes (explore() with options::parallel), `runs` times per worker
// count, alternating so that load changes hit both alike; the table has the
// median iterations per second of each and their ratio, and a last line with
// the median ratio over the programs. The fixed twins find no bug, so every
// run does all its iterations.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "programs.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double iterations_per_second(const heddle_bugs::program& p, unsigned workers, std::uint64_t iterations) {
  heddle::options o = heddle_bugs::options_for(p, "random", iterations);
  o.parallel = workers;
  o.progress = false;
  const heddle::result r = heddle::explore(o, p.fixed, heddle_bugs::identity_of(p));
  return r.stats.iterations_per_second();
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t iterations = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  fmt::print("{:<34} {:>14} {:>14} {:>7}\n", "program (fixed twin, random)", "parallel 1 it/s", "parallel 2 it/s",
             "ratio");
  std::vector<double> ratios;
  for (const heddle_bugs::program& p : heddle_bugs::all_programs()) {
    std::vector<double> one, two;
    for (int k = 0; k < runs; ++k) {
      one.push_back(iterations_per_second(p, 1, iterations));
      two.push_back(iterations_per_second(p, 2, iterations));
    }
    const double a = median(one), b = median(two);
    ratios.push_back(b / a);
    fmt::print("{:<34} {:>14.0f} {:>14.0f} {:>6.2f}x\n", p.name, a, b, b / a);
    std::fflush(stdout);
  }
  fmt::print("median ratio over {} programs: {:.2f}x (min {:.2f}x, max {:.2f}x)\n", ratios.size(), median(ratios),
             *std::min_element(ratios.begin(), ratios.end()), *std::max_element(ratios.begin(), ratios.end()));
}
