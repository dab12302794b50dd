// The cost of a heddle::checked<C> call (issue 17, docs/performance.md,
// "Thread-safety wrappers"):
//
//   outside control  checked<std::vector<int>> against std::vector<int>, the same
//                    loop of operator[] reads and size() (the cost a program pays
//                    for leaving the wrapper in a production build);
//   under control    one operation making 1,000 checked calls per iteration
//                    against 1,000 heddle::this_thread::yield() (one decision
//                    each): a checked call is two scheduling points.
//
// Per-call rates are counted over the CPU time of the benchmark thread.
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "heddle/checked.hpp"
#include "heddle/explore.hpp"
#include "heddle/this_thread.hpp"

namespace {

constexpr int elements = 64;
constexpr int calls_per_iteration = 1000;

template <class V>
void reads(benchmark::State& state) {
  V v;
  for (int i = 0; i < elements; ++i) v.push_back(i);
  std::int64_t calls = 0;
  for (auto _ : state) {
    long sum = 0;
    for (int i = 0; i < elements; ++i) sum += v[static_cast<std::size_t>(i)] + static_cast<long>(v.size());
    benchmark::DoNotOptimize(sum);
    calls += 2 * elements;
  }
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(calls), benchmark::Counter::kIsRate);
}
void std_vector_reads(benchmark::State& s) { reads<std::vector<int>>(s); }
void checked_vector_reads_outside_control(benchmark::State& s) { reads<heddle::checked<std::vector<int>>>(s); }

heddle::options quiet(std::uint64_t iterations) {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = "random";
  o.print_report = false;
  o.out.clear();
  o.max_steps = 10 * calls_per_iteration;
  return o;
}

// state.range(0): iterations per explore() call.
void under_control(benchmark::State& state, void (*body)()) {
  std::uint64_t iterations = 0, steps = 0;
  for (auto _ : state) {
    const heddle::result r = heddle::explore(quiet(static_cast<std::uint64_t>(state.range(0))), body);
    if (!r) {
      state.SkipWithError(r.bug ? r.bug->message.c_str() : "diverged");
      break;
    }
    iterations += r.stats.iterations;
    steps += r.stats.steps_total;
  }
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(iterations * calls_per_iteration),
                                                 benchmark::Counter::kIsRate);
  state.counters["decisions/call"] =
      static_cast<double>(steps) / static_cast<double>(iterations * calls_per_iteration);
}
void checked_calls_body() {
  heddle::checked<std::vector<int>> v{1, 2, 3};
  long sum = 0;
  for (int i = 0; i < calls_per_iteration; ++i) sum += v[1];
  benchmark::DoNotOptimize(sum);
}
void yields_body() {
  for (int i = 0; i < calls_per_iteration; ++i) heddle::this_thread::yield();
}
void checked_vector_reads_under_control(benchmark::State& s) { under_control(s, checked_calls_body); }
void yields_under_control(benchmark::State& s) { under_control(s, yields_body); }

BENCHMARK(std_vector_reads)->Name("outside_control/std_vector");
BENCHMARK(checked_vector_reads_outside_control)->Name("outside_control/checked_vector");
BENCHMARK(checked_vector_reads_under_control)->Name("under_control/checked_vector")->Arg(100)->MeasureProcessCPUTime();
BENCHMARK(yields_under_control)->Name("under_control/yield")->Arg(100)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
