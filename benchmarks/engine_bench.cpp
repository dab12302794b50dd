// Engine throughput: the figures the performance issue sets targets for.
//
//   decisions/s   2 operations x 10,000 yields, fibers (target >= 20 million/s)
//   iterations/s  2 threads x 10 mutex increments + assertion, one core
//                 (target >= 400,000/s)
// each under `random` and `pct:3`. Rates are explore()'s own counts (steps and
// iterations counted by the engine) over the CPU time of the thread running
// explore(): an iteration runs all its operations on that one thread, and CPU
// time leaves out the time other processes of a shared machine took from it.
// (Google Benchmark's "Time" column shows the wall time next to it.)
// A run that finds a bug is a broken benchmark, not a slow one: it stops with an
// error instead of reporting a figure.
#include <optional>

#include <benchmark/benchmark.h>

#include "pinning.hpp"
#include "workloads.hpp"

namespace heddle::bench {
namespace {

constexpr int yields_per_operation = 10'000;
constexpr int increments_per_thread = 10;
// 2 x 10,000 yields, plus the starts, finishes and joins, with room to spare.
constexpr std::uint64_t yield_max_steps = 2 * yields_per_operation + 1'000;

// state.range(0): iterations per explore() call, so its fixed set-up cost (the
// strategy, the stack pool) is amortized as it is in a real run.
void run(benchmark::State& state, const char* strategy, void (*body)(), bool pin, std::uint64_t max_steps) {
  std::optional<pinned_to_cpu> pin_guard;
  if (pin && !pin_guard.emplace().ok()) {
    state.SkipWithError("sched_setaffinity failed: cannot pin to one CPU");
    return;
  }
  const auto per_call = static_cast<std::uint64_t>(state.range(0));
  std::uint64_t steps = 0;
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    const result r = explore(quiet(per_call, strategy, max_steps), body);
    if (!r) {
      state.SkipWithError(r.bug ? r.bug->message.c_str() : "the run diverged");
      break;
    }
    steps += r.stats.steps_total;
    iterations += r.stats.iterations;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(steps));
  state.counters["decisions/s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["iterations/s"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
  state.counters["decisions/iteration"] =
      iterations > 0 ? static_cast<double>(steps) / static_cast<double>(iterations) : 0.0;
}

void yields() { yield_ping_pong(yields_per_operation); }
void increments() { mutex_increments(increments_per_thread); }

void decisions_random(benchmark::State& s) { run(s, "random", yields, false, yield_max_steps); }
void decisions_pct3(benchmark::State& s) { run(s, "pct:3", yields, false, yield_max_steps); }
void iterations_random_one_core(benchmark::State& s) { run(s, "random", increments, true, options{}.max_steps); }
void iterations_pct3_one_core(benchmark::State& s) { run(s, "pct:3", increments, true, options{}.max_steps); }

// The fixed cost of one explore() call (strategy, stack pool, crash handler
// buffers), with a body that does nothing: what a suite of many small tests pays
// per test on top of its iterations.
void explore_call(benchmark::State& state) {
  for (auto _ : state) {
    const result r = explore(quiet(1, "random"), [] {});
    benchmark::DoNotOptimize(r.stats.iterations);
  }
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(explore_call)->Name("explore_call/empty_body")->Unit(benchmark::kMicrosecond);

BENCHMARK(decisions_random)->Name("decisions/random")->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(decisions_pct3)->Name("decisions/pct:3")->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(iterations_random_one_core)
    ->Name("iterations/random/one_core")
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(iterations_pct3_one_core)
    ->Name("iterations/pct:3/one_core")
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace heddle::bench
