// The coroutine task runtime's cost (issue 17, docs/performance.md "Tasks"):
//
//   floor/raw_coroutine_resume  resuming a bare C++20 coroutine, no heddle: the floor
//   decisions/random            2 threads x 10,000 this_thread::yield (engine_bench's figure)
//   task_switch/yield           2 tasks x 10,000 co_await heddle::yield()
//   task_switch/await_ready     2 tasks x 10,000 co_await of a child task that
//                               completes without waiting (started inline, one decision)
//   task_switch/await_done      2 tasks x 10,000 co_await of a task that has completed
//   iterations/2_tasks_x_10_awaits  2 tasks, each 10 x (co_await child + counter update)
// all under `random`, in one run so the ratios compare like with like. Rates
// are explore()'s own counts of decisions and iterations over the CPU time of
// the thread running explore() (Google Benchmark's kIsRate), as in
// engine_bench.cpp.
//
// With --rates: instead of the benchmarks, the share of 10,000 iterations in
// which pctt:1, pctt:2, pct:1, pct:3, random and the default portfolio find
// the bug of Coyote's running example (docs/strategies.md).
#include <coroutine>
#include <cstdio>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

#include "heddle/explore.hpp"
#include "heddle/task.hpp"
#include "task_programs.hpp"
#include "workloads.hpp"

namespace {

using heddle::task;

constexpr int switches = 10'000;
constexpr std::uint64_t max_steps = 2 * switches + 1'000;

// --- the floor ---------------------------------------------------------------------
struct resumable {
  struct promise_type {
    resumable get_return_object() { return {std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() { std::terminate(); }
  };
  std::coroutine_handle<promise_type> h;
};
resumable forever(std::uint64_t& counter) {
  for (;;) {
    ++counter;
    co_await std::suspend_always{};
  }
}

void raw_coroutine_resume(benchmark::State& state) {
  std::uint64_t counter = 0;
  resumable r = forever(counter);
  for (auto _ : state) {
    r.h.resume();
    benchmark::DoNotOptimize(counter);
  }
  r.h.destroy();
  state.counters["resumes/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// --- tasks ---------------------------------------------------------------------------
task<void> yields(int n) {
  for (int i = 0; i < n; ++i) co_await heddle::yield();
}
task<int> ready_child(int i) { co_return i; }
task<void> awaits_ready(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += co_await ready_child(i);
  benchmark::DoNotOptimize(sum);
}
task<void> awaits_done(int n) {
  task<int> done = ready_child(1);
  co_await done;  // completes it (inline)
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += co_await done;
  benchmark::DoNotOptimize(sum);
}

template <task<void> (*Body)(int)>
void two_tasks() {
  auto a = heddle::run(Body(switches), "a");
  auto b = heddle::run(Body(switches), "b");
  heddle::wait_all(a, b);
}

task<void> ten_awaits(int& counter) {
  for (int i = 0; i < 10; ++i) counter += co_await ready_child(1);
}
void two_tasks_ten_awaits() {
  int counter = 0;
  auto a = heddle::run(ten_awaits(counter), "a");
  auto b = heddle::run(ten_awaits(counter), "b");
  heddle::wait_all(a, b);
  HEDDLE_ASSERT(counter == 20);
}

void run(benchmark::State& state, void (*body)(), std::uint64_t steps_cap) {
  const auto per_call = static_cast<std::uint64_t>(state.range(0));
  std::uint64_t steps = 0, iterations = 0;
  for (auto _ : state) {
    const heddle::result r = heddle::explore(heddle::bench::quiet(per_call, "random", steps_cap), body);
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

void thread_yields() { heddle::bench::yield_ping_pong(switches); }

BENCHMARK(raw_coroutine_resume)->Name("floor/raw_coroutine_resume");
BENCHMARK_CAPTURE(run, decisions_random, thread_yields, max_steps)->Name("decisions/random")->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, yield, two_tasks<yields>, max_steps)->Name("task_switch/yield")->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, await_ready, two_tasks<awaits_ready>, max_steps)
    ->Name("task_switch/await_ready")
    ->Arg(10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, await_done, two_tasks<awaits_done>, max_steps)
    ->Name("task_switch/await_done")
    ->Arg(10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, iterations, two_tasks_ten_awaits, heddle::options{}.max_steps)
    ->Name("iterations/2_tasks_x_10_awaits")
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);

// --- --rates: the running example's table ------------------------------------------------
int print_rates(std::uint64_t iterations) {
  std::printf("| strategy | iterations | buggy iterations | rate |\n|---|---:|---:|---:|\n");
  for (const char* strategy : {"pctt:1", "pctt:2", "pctt:3", "pct:1", "pct:3", "random", "portfolio"}) {
    heddle::options o = heddle_tasks::quiet(iterations, strategy);
    o.stop_on_first_bug = false;
    o.minimize = false;
    const heddle::result r = heddle::explore(o, heddle_tasks::running_example);
    std::printf("| `%s` | %llu | %llu | %.2f%% |\n", strategy, static_cast<unsigned long long>(r.stats.iterations),
                static_cast<unsigned long long>(r.stats.buggy_iterations),
                100.0 * static_cast<double>(r.stats.buggy_iterations) / static_cast<double>(r.stats.iterations));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--rates") == 0) return print_rates(i + 1 < argc ? std::stoull(argv[i + 1]) : 10'000);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
