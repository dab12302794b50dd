// Reference figures, measured in the same run as the engine so that ratios
// between them survive a noisy machine (DESIGN.md section 13 lists earlier values):
//
//   reference/boost_context_switch  two Boost.Context fibers resuming each other:
//                                   the floor under every heddle decision
//   reference/ucontext_switch       the same with swapcontext (why heddle does not use it)
//   reference/futex_handoff/*       two std::threads passing a turn through a futex word:
//                                   what an OS-thread backend pays per decision
//   reference/condvar_handoff/*     the same through std::mutex + std::condition_variable,
//                                   as CCT libraries with one OS thread per operation do
// Hand-offs run with both threads on one CPU (`same_cpu`), on two CPUs
// (`cross_cpu`) and where the kernel puts them (`unpinned`). Every figure is a
// cost per switch (or hand-off): the counter `switch` is seconds per one-way
// switch and `switches/s` its rate.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include <benchmark/benchmark.h>
#include <boost/context/fiber.hpp>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "pinning.hpp"

namespace heddle::bench {
namespace {

void report_switches(benchmark::State& state, std::int64_t per_iteration) {
  const auto switches = static_cast<double>(state.iterations() * per_iteration);
  state.SetItemsProcessed(state.iterations() * per_iteration);
  state.counters["switches/s"] = benchmark::Counter(switches, benchmark::Counter::kIsRate);
  state.counters["switch"] =
      benchmark::Counter(switches, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// --- in-thread context switches -------------------------------------------------

void boost_context_switch(benchmark::State& state) {
  namespace ctx = boost::context;
  ctx::fiber partner{[](ctx::fiber&& caller) {
    for (;;) caller = std::move(caller).resume();
    return std::move(caller);
  }};
  for (auto _ : state) partner = std::move(partner).resume();  // there and back: 2 switches
  report_switches(state, 2);
  // Destroying `partner` unwinds it (Boost.Context's forced_unwind).
}
BENCHMARK(boost_context_switch)->Name("reference/boost_context_switch");

ucontext_t ucontext_main;
ucontext_t ucontext_partner;
void ucontext_partner_loop() {
  for (;;) ::swapcontext(&ucontext_partner, &ucontext_main);
}

void ucontext_switch(benchmark::State& state) {
  static char stack[64 * 1024];
  ::getcontext(&ucontext_partner);
  ucontext_partner.uc_stack.ss_sp = stack;
  ucontext_partner.uc_stack.ss_size = sizeof stack;
  ucontext_partner.uc_link = nullptr;
  ::makecontext(&ucontext_partner, ucontext_partner_loop, 0);
  for (auto _ : state) ::swapcontext(&ucontext_main, &ucontext_partner);  // 2 switches
  report_switches(state, 2);
  // The partner is left suspended on the static stack and re-made next time.
}
BENCHMARK(ucontext_switch)->Name("reference/ucontext_switch");

// --- hand-offs between OS threads -----------------------------------------------

enum class placement { same_cpu, cross_cpu, unpinned };

std::optional<int> cpu_for(placement p, bool partner) {
  if (p == placement::unpinned) return std::nullopt;
  const int here = ::sched_getcpu() < 0 ? 0 : ::sched_getcpu();
  if (p == placement::same_cpu || !partner) return here;
  return (here + 1) % std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// Whose turn it is: the benchmark thread's (0), the partner's (1), or stop (2).
struct futex_word {
  std::atomic<std::uint32_t> turn{0};

  void wait_while(std::uint32_t value) {
    while (turn.load(std::memory_order_acquire) == value)
      ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&turn), FUTEX_WAIT_PRIVATE, value, nullptr,
                nullptr, 0);
  }
  void set(std::uint32_t value) {
    turn.store(value, std::memory_order_release);
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&turn), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
};

void futex_handoff(benchmark::State& state, placement where) {
  if (where == placement::cross_cpu && usable_cpus() < 2) {
    state.SkipWithError("needs two CPUs");
    return;
  }
  std::optional<pinned_to_cpu> pin;
  if (const auto cpu = cpu_for(where, false)) pin.emplace(*cpu);
  const std::optional<int> partner_cpu = cpu_for(where, true);
  futex_word word;
  std::thread partner{[&] {
    std::optional<pinned_to_cpu> partner_pin;
    if (partner_cpu) partner_pin.emplace(*partner_cpu);
    for (;;) {
      word.wait_while(0);
      if (word.turn.load(std::memory_order_acquire) == 2) return;
      word.set(0);
    }
  }};
  for (auto _ : state) {
    word.set(1);
    word.wait_while(1);
  }
  word.set(2);
  partner.join();
  report_switches(state, 2);
}
BENCHMARK_CAPTURE(futex_handoff, same_cpu, placement::same_cpu)->Name("reference/futex_handoff/same_cpu")->UseRealTime();
BENCHMARK_CAPTURE(futex_handoff, cross_cpu, placement::cross_cpu)->Name("reference/futex_handoff/cross_cpu")->UseRealTime();
BENCHMARK_CAPTURE(futex_handoff, unpinned, placement::unpinned)->Name("reference/futex_handoff/unpinned")->UseRealTime();

void condvar_handoff(benchmark::State& state, placement where) {
  std::optional<pinned_to_cpu> pin;
  if (const auto cpu = cpu_for(where, false)) pin.emplace(*cpu);
  const std::optional<int> partner_cpu = cpu_for(where, true);
  std::mutex m;
  std::condition_variable cv;
  int turn = 0;  // as futex_word::turn
  std::thread partner{[&] {
    std::optional<pinned_to_cpu> partner_pin;
    if (partner_cpu) partner_pin.emplace(*partner_cpu);
    std::unique_lock lock(m);
    for (;;) {
      cv.wait(lock, [&] { return turn != 0; });
      if (turn == 2) return;
      turn = 0;
      cv.notify_one();
    }
  }};
  for (auto _ : state) {
    std::unique_lock lock(m);
    turn = 1;
    cv.notify_one();
    cv.wait(lock, [&] { return turn != 1; });
  }
  {
    const std::lock_guard lock(m);
    turn = 2;
  }
  cv.notify_one();
  partner.join();
  report_switches(state, 2);
}
BENCHMARK_CAPTURE(condvar_handoff, same_cpu, placement::same_cpu)->Name("reference/condvar_handoff/same_cpu")->UseRealTime();
BENCHMARK_CAPTURE(condvar_handoff, unpinned, placement::unpinned)->Name("reference/condvar_handoff/unpinned")->UseRealTime();

}  // namespace
}  // namespace heddle::bench
