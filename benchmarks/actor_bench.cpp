// Actor messages handled per second between two actors (issue 18,
// docs/performance.md "Actors (issue 18)"), against its floor.
//
//   actors/ping_pong/random      two actors bounce one event 10,000 times per
//                                iteration under `random`: messages/s counts
//                                handled events over the CPU time of explore()
//   floor/switch_and_push        what one message cannot cost less than: one
//                                Boost.Context switch to the receiver plus one
//                                inbox push and pop of a heap-boxed event, the
//                                two fibers bouncing it as the actors do
//
// A message costs the runtime two decisions (the send point, and the
// receiver's wake-up from its idle inbox, which is its dequeue), each a
// strategy call and a fiber switch, plus the handler dispatch by type and the
// state fingerprint update; the floor has one switch and the push.
#include <chrono>
#include <deque>
#include <memory>

#include <benchmark/benchmark.h>
#include <boost/context/fiber.hpp>

#include "heddle/actor.hpp"
#include "heddle/explore.hpp"

namespace {

constexpr int messages_per_iteration = 10'000;

struct ball {
  int left = 0;
};

struct player : heddle::actor {
  player() {
    on<ball>([this](const ball& b) {
      if (b.left > 0) send(partner_, ball{b.left - 1});
    });
    on<heddle::actor_id>([this](heddle::actor_id p) { partner_ = p; });
  }
  heddle::actor_id partner_;
};

void ping_pong(benchmark::State& state) {
  const heddle::options o{.iterations = static_cast<std::uint64_t>(state.range(0)), .strategy = "random",
                          .max_steps = 3 * messages_per_iteration + 100, .print_report = false, .out = ""};
  std::uint64_t messages = 0;
  std::uint64_t steps = 0;
  for (auto _ : state) {
    const heddle::result r = heddle::explore(o, [] {
      auto a = heddle::create<player>();
      auto b = heddle::create<player>();
      heddle::send(a, b);
      heddle::send(b, a);
      heddle::send(a, ball{messages_per_iteration - 1});
    });
    if (!r) {
      state.SkipWithError(r.bug ? r.bug->message.c_str() : "the run diverged");
      break;
    }
    messages += r.stats.iterations * (messages_per_iteration + 2);
    steps += r.stats.steps_total;
  }
  state.counters["messages/s"] = benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsRate);
  state.counters["message"] = benchmark::Counter(static_cast<double>(messages),
                                                 benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["decisions/message"] = messages > 0 ? static_cast<double>(steps) / static_cast<double>(messages) : 0;
}
BENCHMARK(ping_pong)->Name("actors/ping_pong/random")->Arg(10)->Unit(benchmark::kMillisecond);

struct boxed_event {
  virtual ~boxed_event() = default;
  int left = 0;
};

void switch_and_push(benchmark::State& state) {
  namespace ctx = boost::context;
  std::deque<std::unique_ptr<boxed_event>> inbox;
  ctx::fiber partner{[&inbox](ctx::fiber&& caller) {
    for (;;) {
      auto e = std::move(inbox.front());
      inbox.pop_front();
      benchmark::DoNotOptimize(e->left);
      inbox.push_back(std::move(e));  // the answer
      caller = std::move(caller).resume();
    }
    return std::move(caller);
  }};
  std::int64_t messages = 0;
  inbox.push_back(std::make_unique<boxed_event>());
  for (auto _ : state) {
    // One message there (switch + push), one back: two messages per round.
    partner = std::move(partner).resume();
    auto e = std::move(inbox.front());
    inbox.pop_front();
    benchmark::DoNotOptimize(e->left);
    inbox.push_back(std::make_unique<boxed_event>());
    messages += 2;
  }
  state.counters["messages/s"] = benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsRate);
  state.counters["message"] =
      benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(switch_and_push)->Name("floor/switch_and_push");

}  // namespace

BENCHMARK_MAIN();
