// lincheck's verifier cost (docs/performance.md, "Linearizability checking"):
// checks per second of histories of T threads x 5 calls on a queue, T = 2, 3, 4;
// and what a whole check() call costs (`check_call`: 1 scenario, which is
// mostly the fixed cost of a call, such as forking the standby process that
// takes a crash over; and 20 scenarios), 10 runs per scenario, in wall time.
//
// Histories are made the way a passing test makes them: each thread invokes
// its calls one after another, every call takes effect at a random point
// between its invocation and its response, and the threads advance in random
// order, so calls overlap heavily. `linearizable` checks such histories (the
// common case: every run of a passing test); `violation` changes the last
// dequeue's result so no order explains it (the whole search, then the
// explanation). 64 different histories per size, cycled.
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "queue.hpp"

namespace {

using heddle::lincheck::history;

const auto queue = examples::queue_spec<examples::fixed_queue>();
const heddle::lincheck::declaration queue_decl = queue;

// A random linearizable history of `threads` x 5 calls.
history make_history(std::size_t threads, std::uint64_t seed, bool violate) {
  std::mt19937_64 r(seed);
  examples::seq_queue model;
  history h;
  struct thread_state {
    std::size_t done = 0;
    int stage = 0;  // 0 idle, 1 invoked, 2 took effect
    std::size_t index = 0;
    bool enqueue = false;
    int value = 0;
    std::optional<int> result;
  };
  std::vector<thread_state> ts(threads);
  std::uint64_t clock = 0;
  int next_value = 1;
  for (std::size_t active = threads; active > 0;) {
    thread_state& t = ts[std::uniform_int_distribution<std::size_t>(0, threads - 1)(r)];
    if (t.done == 5) continue;
    const std::size_t thread = static_cast<std::size_t>(&t - ts.data()) + 1;
    if (t.stage == 0) {
      t.enqueue = r() % 2 == 0;
      t.value = next_value++;
      t.index = h.size();
      h.push_back(t.enqueue ? queue.record("enqueue", thread, ++clock, std::nullopt, heddle::lincheck::no_result, t.value)
                            : queue.record("dequeue", thread, ++clock, std::nullopt, std::optional<int>()));
      t.stage = 1;
    } else if (t.stage == 1) {
      if (t.enqueue) model.enqueue(t.value);
      else t.result = model.dequeue();
      t.stage = 2;
    } else {
      const std::uint64_t invoked = h[t.index].invoked;
      h[t.index] = t.enqueue ? queue.record("enqueue", thread, invoked, ++clock, heddle::lincheck::no_result, t.value)
                             : queue.record("dequeue", thread, invoked, ++clock, t.result);
      t.stage = 0;
      if (++t.done == 5) --active;
    }
  }
  if (violate) {
    for (std::size_t i = h.size(); i-- > 0;)
      if (h[i].args->text().empty()) {  // the last dequeue: returns a value nobody enqueued
        h[i] = queue.record("dequeue", h[i].thread, h[i].invoked, h[i].responded, std::optional<int>(-1));
        break;
      }
  }
  return h;
}

void check_histories(benchmark::State& state, bool violate) {
  const auto threads = static_cast<std::size_t>(state.range(0));
  std::vector<history> histories;
  for (std::uint64_t seed = 0; seed < 64; ++seed) histories.push_back(make_history(threads, seed, violate));
  std::size_t i = 0;
  std::uint64_t states = 0;
  for (auto _ : state) {
    const auto v = heddle::lincheck::check_history(queue_decl, histories[i++ % histories.size()],
                                                   heddle::lincheck::consistency::linearizable);
    if (v.ok == violate) state.SkipWithError("unexpected verdict");
    states += v.states;
    benchmark::DoNotOptimize(v);
  }
  state.counters["checks/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["states/check"] =
      benchmark::Counter(static_cast<double>(states) / static_cast<double>(state.iterations()));
}

void linearizable(benchmark::State& state) { check_histories(state, false); }
void violation(benchmark::State& state) { check_histories(state, true); }

void check_call(benchmark::State& state) {
  const heddle::lincheck::declaration d = examples::queue_spec<examples::fixed_queue>()
                                              .scenarios(static_cast<std::size_t>(state.range(0)))
                                              .iterations(10)
                                              .print_report(false);
  for (auto _ : state) {
    const auto r = heddle::lincheck::check(d);
    if (r.failure) state.SkipWithError("the fixed queue failed");
    benchmark::DoNotOptimize(r);
  }
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(check_call)->ArgName("scenarios")->Arg(1)->Arg(20)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(linearizable)->ArgName("threads_x5")->Arg(2)->Arg(3)->Arg(4);
BENCHMARK(violation)->ArgName("threads_x5")->Arg(2)->Arg(3)->Arg(4);
BENCHMARK_MAIN();
