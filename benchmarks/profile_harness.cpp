// heddle_profile: runs one of the two measured workloads a fixed number of
// times, for profilers (`perf record`, `valgrind --tool=callgrind`) rather than
// for timing. Google Benchmark runs for a time, so under a profiler its work
// varies; here the work is fixed, and instructions per decision or per
// iteration can be read off a callgrind total directly (the harness prints the
// decisions and iterations it ran).
//
//   heddle_profile yields ITERATIONS [STRATEGY]   figure 1: 2 x 10,000 yields per iteration
//   heddle_profile mutex  ITERATIONS [STRATEGY]   figure 2: 2 threads x 10 increments
//
// STRATEGY defaults to random. Exit code 0, or 1 if the run found a bug (a
// broken workload), 2 on bad arguments.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "workloads.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: heddle_profile yields|mutex ITERATIONS [STRATEGY]\n");
    return 2;
  }
  const std::string_view workload = argv[1];
  char* end = nullptr;
  const unsigned long long iterations = std::strtoull(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0' || iterations == 0) {
    std::fprintf(stderr, "heddle_profile: '%s' is not a positive number of iterations\n", argv[2]);
    return 2;
  }
  const char* strategy = argc > 3 ? argv[3] : "random";
  heddle::result r;
  if (workload == "yields") {
    constexpr int yields = 10'000;
    r = heddle::explore(heddle::bench::quiet(iterations, strategy, 2 * yields + 1'000),
                        [] { heddle::bench::yield_ping_pong(yields); });
  } else if (workload == "mutex") {
    r = heddle::explore(heddle::bench::quiet(iterations, strategy), [] { heddle::bench::mutex_increments(10); });
  } else {
    std::fprintf(stderr, "heddle_profile: unknown workload '%s' (yields or mutex)\n", argv[1]);
    return 2;
  }
  std::printf("%s, %s: %llu iterations, %llu decisions\n", argv[1], strategy,
              static_cast<unsigned long long>(r.stats.iterations),
              static_cast<unsigned long long>(r.stats.steps_total));
  return r ? 0 : 1;
}
