// tsan_bench: what an instrumented plain access costs (docs/performance.md).
//
// A small harness, not Google Benchmark: each figure is one explore() iteration
// (or a plain call) running touch_many() over 2 x 10^6 instrumented accesses to
// memory only the running operation touches, timed with steady_clock; the
// median of 7 runs is printed, in ns per access. Figures:
//   outside control       the hook's early return (no iteration running)
//   control, no checks    --memory=none, detector off: the hook's dispatch
//   race-detector check   --memory=none, detector on: shadow lookup + check
//   shared policy + check --memory=shared (default): the first-toucher table too
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "heddle/explore.hpp"

extern "C" void touch_many(int* cells, long n);

namespace {

constexpr long rounds = 1'000'000;
constexpr double accesses = 2.0 * rounds;

template <class F>
double median_ns_per_access(F run) {
  std::vector<double> samples;
  for (int i = 0; i < 7; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    samples.push_back(took.count() / accesses);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

double under_control(heddle::memory_policy policy, bool detect) {
  heddle::options o{.iterations = 1, .strategy = "random", .print_report = false, .out = "",
                    .memory = policy, .detect_races = detect};
  return median_ns_per_access([&] {
    const auto r = heddle::explore(o, [] {
      static int cells[256];
      touch_many(cells, rounds);
    });
    if (r.bug) std::fprintf(stderr, "unexpected bug: %s\n", r.bug->message.c_str());
  });
}

}  // namespace

int main() {
  static int cells[256];
  std::printf("tsan_bench: ns per instrumented access, median of 7 runs of %.0f accesses\n", accesses);
  std::printf("  outside control:               %6.1f ns\n",
              median_ns_per_access([] { touch_many(cells, rounds); }));
  std::printf("  control, no checks (none):     %6.1f ns\n", under_control(heddle::memory_policy::none, false));
  std::printf("  race-detector check (none):    %6.1f ns\n", under_control(heddle::memory_policy::none, true));
  std::printf("  shared policy + check:         %6.1f ns\n", under_control(heddle::memory_policy::shared, true));
  return 0;
}
