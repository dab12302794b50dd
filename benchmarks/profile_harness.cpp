// heddle_profile: runs one of the two measured workloads a fixed number of
// times, for profilers (`perf record`, `valgrind --tool=callgrind`) rather than
// for timing. Google Benchmark runs for a time, so under a profiler its work
// varies; here the work is fixed, and instructions per decision or per
// iteration can be read off a callgrind total directly (the harness prints the
// decisions and iterations it ran).
//
//   heddle_profile yields ITERATIONS [STRATEGY]   figure 1: 2 x 10,000 yields per iteration
//   heddle_profile mutex  ITERATIONS [STRATEGY]   figure 2: 2 threads x 10 increments
//   heddle_profile task_yield ITERATIONS            2 tasks x 10,000 co_await heddle::yield()
//   heddle_profile task_await_done ITERATIONS       2 tasks x 10,000 co_await of a completed task
//   heddle_profile task_await_ready ITERATIONS      2 tasks x 10,000 co_await of an unstarted child
//                                                  that completes at once (task_bench's task_switch/*)
//   heddle_profile first_bug CALLS                 time to first bug (issue 14): CALLS
//                                                  explore() calls on check_then_act, each
//                                                  until its bug (the 2nd iteration)
//   heddle_profile clean_pair CALLS                the same calls on the fixed twin, 2
//                                                  iterations each
//
// For the last two, the difference between CALLS = 60 and CALLS = 10, over
// 50, is what one call costs (time_to_first_bug's figures, load-independent).
//
// STRATEGY defaults to random. Exit code 0, or 1 if the run found a bug (a
// broken workload), 2 on bad arguments.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "heddle/task.hpp"
#include "workloads.hpp"

namespace {
// task_bench.cpp's task_switch/* bodies.
heddle::task<void> yields(int n) {
  for (int i = 0; i < n; ++i) co_await heddle::yield();
}
heddle::task<int> ready_child(int i) { co_return i; }
heddle::task<void> awaits_ready(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += co_await ready_child(i);
  if (sum < 0) std::abort();
}
heddle::task<void> awaits_done(int n) {
  heddle::task<int> done = ready_child(1);
  co_await done;  // completes it (inline)
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += co_await done;
  if (sum < 0) std::abort();
}
template <heddle::task<void> (*Body)(int)>
void two_tasks() {
  auto a = heddle::run(Body(10'000), "a");
  auto b = heddle::run(Body(10'000), "b");
  heddle::wait_all(a, b);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: heddle_profile yields|mutex|task_yield|task_await_done|task_await_ready ITERATIONS [STRATEGY] | first_bug|clean_pair CALLS\n");
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
  } else if (workload == "task_yield" || workload == "task_await_done" || workload == "task_await_ready") {
    void (*body)() = workload == "task_yield"        ? two_tasks<yields>
                     : workload == "task_await_done" ? two_tasks<awaits_done>
                                                     : two_tasks<awaits_ready>;
    r = heddle::explore(heddle::bench::quiet(iterations, strategy, 21'000), body);
  } else if (workload == "mutex") {
    r = heddle::explore(heddle::bench::quiet(iterations, strategy), [] { heddle::bench::mutex_increments(10); });
  } else if (workload == "first_bug" || workload == "clean_pair") {
    // As time_to_first_bug: random, seed 42, no report printed, no trace, no minimization.
    const bool fixed = workload == "clean_pair";
    heddle::options o = heddle::bench::quiet(fixed ? 2 : 1000, "random");
    o.seed = 42;
    o.minimize = false;
    o.progress = false;
    for (unsigned long long call = 0; call < iterations; ++call) {
      r = heddle::explore(o, [fixed] { heddle::bench::check_then_act(fixed); });
      if (static_cast<bool>(r.bug) == fixed) {
        std::fprintf(stderr, "heddle_profile: %s\n", fixed ? "the fixed twin has a bug" : "no bug found");
        return 1;
      }
    }
    std::printf("%s: %llu explore() calls of %llu iterations\n", argv[1], iterations,
                static_cast<unsigned long long>(r.stats.iterations));
    return 0;
  } else {
    std::fprintf(stderr, "heddle_profile: unknown workload '%s' (yields, mutex, task_yield, task_await_done, task_await_ready, first_bug or clean_pair)\n", argv[1]);
    return 2;
  }
  std::printf("%s, %s: %llu iterations, %llu decisions\n", argv[1], strategy,
              static_cast<unsigned long long>(r.stats.iterations),
              static_cast<unsigned long long>(r.stats.steps_total));
  return r ? 0 : 1;
}
