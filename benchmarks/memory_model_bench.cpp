// What --memory-model rc11 costs against sc (docs/performance.md, issue 16).
//
//   model/<workload>/<sc|rc11>   decisions/s and iterations/s of one workload
//                                under each model, `random`, one core:
//     yields              2 operations x 10,000 yields (no atomics: rc11 adds
//                         nothing but the flag test)
//     mutex_increments    2 threads x 10 increments under heddle::mutex (rc11
//                         carries views along each unlock -> lock edge)
//     seq_cst_atomics     2 threads x 10 seq_cst fetch_add, then a seq_cst load:
//                         a test that uses only seq_cst atomics
//     relaxed_atomics     message passing, 2 threads x 10 relaxed stores and
//                         loads: rc11 offers each load every store it may read
//   litmus/<test>/<dfs|dpor>     one exhaustive verification of a litmus test
//                                under rc11 (tests/memory_model/) by dfs or
//                                dpor: wall time per full exploration, the
//                                program runs it took and the executions it
//                                counted.
// Rates are explore()'s own counts over the CPU time of the thread running it
// (see engine_bench.cpp); a run that finds a bug is an error, not a figure.
#include <optional>

#include <benchmark/benchmark.h>

#include "heddle/atomic.hpp"
#include "pinning.hpp"
#include "workloads.hpp"

namespace heddle::bench {
namespace {

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr auto seq = std::memory_order_seq_cst;

void yields() { yield_ping_pong(10'000); }
void increments() { mutex_increments(10); }
void seq_cst_atomics() {
  heddle::atomic<int> counter{0};
  auto worker = [&] {
    for (int i = 0; i < 10; ++i) counter.fetch_add(1, seq);
  };
  heddle::thread a{worker};
  heddle::thread b{worker};
  a.join();
  b.join();
  HEDDLE_ASSERT(counter.load(seq) == 20);
}
void relaxed_atomics() {
  heddle::atomic<int> data{0}, flag{0};
  heddle::thread producer{[&] {
    for (int i = 1; i <= 10; ++i) {
      data.store(i, rlx);
      flag.store(i, rlx);
    }
  }};
  heddle::thread consumer{[&] {
    int sum = 0;
    for (int i = 0; i < 10; ++i) sum += flag.load(rlx) + data.load(rlx);
    HEDDLE_ASSERT(sum >= 0);
  }};
  producer.join();
  consumer.join();
}

void run(benchmark::State& state, void (*body)(), memory_model model, std::uint64_t max_steps) {
  std::optional<pinned_to_cpu> pin_guard;
  if (!pin_guard.emplace().ok()) {
    state.SkipWithError("sched_setaffinity failed: cannot pin to one CPU");
    return;
  }
  std::uint64_t steps = 0;
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    options o = quiet(static_cast<std::uint64_t>(state.range(0)), "random", max_steps);
    o.memory_model = model;
    const result r = explore(o, body);
    if (!r) {
      state.SkipWithError(r.bug ? r.bug->message.c_str() : "the run diverged");
      break;
    }
    steps += r.stats.steps_total;
    iterations += r.stats.iterations;
  }
  state.counters["decisions/s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["iterations/s"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
  state.counters["decisions/iteration"] =
      iterations > 0 ? static_cast<double>(steps) / static_cast<double>(iterations) : 0.0;
}

template <void (*body)(), memory_model model>
void workload(benchmark::State& s) {
  run(s, body, model, body == yields ? 21'000 : options{}.max_steps);
}

#define HEDDLE_MODEL_BENCH(name, body, iterations)                                                        \
  BENCHMARK(workload<body, memory_model::sc>)->Name("model/" name "/sc")->Arg(iterations)->Unit(benchmark::kMillisecond); \
  BENCHMARK(workload<body, memory_model::rc11>)->Name("model/" name "/rc11")->Arg(iterations)->Unit(benchmark::kMillisecond)

HEDDLE_MODEL_BENCH("yields", yields, 10);
HEDDLE_MODEL_BENCH("mutex_increments", increments, 10'000);
HEDDLE_MODEL_BENCH("seq_cst_atomics", seq_cst_atomics, 10'000);
HEDDLE_MODEL_BENCH("relaxed_atomics", relaxed_atomics, 10'000);

// --- litmus verification under dfs and dpor ---

void sb() {
  heddle::atomic<int> x{0}, y{0};
  int r1 = 0, r2 = 0;
  heddle::thread a{[&] {
    x.store(1, rlx);
    r1 = y.load(rlx);
  }};
  heddle::thread b{[&] {
    y.store(1, rlx);
    r2 = x.load(rlx);
  }};
  a.join();
  b.join();
  benchmark::DoNotOptimize(r1 + r2);
}
void mp() {
  heddle::atomic<int> d{0}, f{0};
  heddle::thread a{[&] {
    d.store(1, rlx);
    f.store(1, rel);
  }};
  heddle::thread b{[&] {
    if (f.load(acq) == 1) HEDDLE_ASSERT(d.load(rlx) == 1);
  }};
  a.join();
  b.join();
}
void wrc() {
  heddle::atomic<int> x{0}, y{0};
  heddle::thread a{[&] { x.store(1, rel); }};
  heddle::thread b{[&] {
    if (x.load(acq) == 1) y.store(1, rel);
  }};
  heddle::thread c{[&] {
    if (y.load(acq) == 1) HEDDLE_ASSERT(x.load(rlx) == 1);
  }};
  a.join();
  b.join();
  c.join();
}
void isa2() {
  heddle::atomic<int> x{0}, y{0}, z{0};
  heddle::thread a{[&] {
    x.store(1, rlx);
    y.store(1, rel);
  }};
  heddle::thread b{[&] {
    if (y.load(acq) == 1) z.store(1, rel);
  }};
  heddle::thread c{[&] {
    if (z.load(acq) == 1) HEDDLE_ASSERT(x.load(rlx) == 1);
  }};
  a.join();
  b.join();
  c.join();
}

// IRIW, relaxed: four threads (the body is the fourth), every load free.
void iriw() {
  heddle::atomic<int> x{0}, y{0};
  int r[4] = {};
  heddle::thread a{[&] { x.store(1, rlx); }};
  heddle::thread b{[&] { y.store(1, rlx); }};
  heddle::thread c{[&] {
    r[0] = x.load(rlx);
    r[1] = y.load(rlx);
  }};
  r[2] = y.load(rlx);
  r[3] = x.load(rlx);
  a.join();
  b.join();
  c.join();
  benchmark::DoNotOptimize(r[0] + r[1] + r[2] + r[3]);
}

// One complete exploration per benchmark iteration. Counters: `iterations`,
// the program runs it took; `executions`, what its verdict counts (dfs:
// schedules, each rf and mo choice of each interleaving; dpor: distinct
// RC11 execution graphs).
template <void (*body)(), bool dpor>
void litmus(benchmark::State& state) {
  std::uint64_t executions = 0, iterations = 0;
  for (auto _ : state) {
    options o = quiet(10'000'000, dpor ? "dpor" : "dfs");
    o.memory_model = memory_model::rc11;
    const result r = explore(o, body);
    if (!r || !r.stats.exhausted) {
      state.SkipWithError(r.bug ? r.bug->message.c_str() : "the search did not finish");
      break;
    }
    executions = r.stats.schedules;
    iterations = r.stats.iterations;
  }
  state.counters["executions"] = static_cast<double>(executions);
  state.counters["iterations"] = static_cast<double>(iterations);
}
#define HEDDLE_LITMUS_BENCH(name, body)                                                      \
  BENCHMARK(litmus<body, false>)->Name("litmus/" name "/dfs")->Unit(benchmark::kMillisecond); \
  BENCHMARK(litmus<body, true>)->Name("litmus/" name "/dpor")->Unit(benchmark::kMillisecond)
HEDDLE_LITMUS_BENCH("sb_relaxed", sb);
HEDDLE_LITMUS_BENCH("mp_release_acquire", mp);
HEDDLE_LITMUS_BENCH("wrc_release_acquire", wrc);
HEDDLE_LITMUS_BENCH("isa2_release_acquire", isa2);
// dfs takes about 10 s on IRIW: one exploration is the figure.
BENCHMARK(litmus<iriw, false>)->Name("litmus/iriw_relaxed/dfs")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(litmus<iriw, true>)->Name("litmus/iriw_relaxed/dpor")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace heddle::bench

BENCHMARK_MAIN();
