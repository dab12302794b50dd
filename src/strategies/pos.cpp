// `pos`: partial order sampling.
//
// Yuan, Yang, Gu. "Partial Order Aware Concurrency Sampling". CAV 2018.
//
// Every pending event (an operation's next step) holds a random priority; the
// enabled operation whose event has the highest priority runs. After an event
// runs, the events that race with it get fresh random priorities, and so does
// the next event of the operation that ran. A random walk picks orders of
// independent events many times over; POS, by redrawing only where events race,
// samples the partial orders (the classes of equivalent schedules) much more
// evenly, so a bug that needs one long run of independent steps before a racing
// one is found with probability about 1/n instead of 2^-n.
//
// Two pending points race when they are on the same object (not object 0) and
// at least one of them writes. What writes, by point kind:
// - read (atomic loads, shared<T> reads), join (it only observes that an
//   operation finished) and start (the object is the new operation's own)
//   do not write;
// - every lock operation writes (acquire, release and their shared forms), so
//   all lock operations on one lock race, including two shared acquisitions;
// - write, rmw, signal, wait, send, receive and user write: a wait may consume
//   what it waits for (a semaphore count, a barrier arrival) and the point does
//   not say which object kind it is on, so it is treated as a write;
// - fence, yield, sleep and choose are on object 0 and race with nothing.
//
// Departures from the paper:
// - The engine shows the strategy only the enabled operations, so a racing
//   event of a blocked operation keeps its priority; a waiter woken by the step
//   (e.g. by a mutex release) is enabled at the next decision, and its wait on
//   the same object races with the step, so it is redrawn then.
// - An operation that slept gets a random priority below the fresh ones for
//   its next event, so a loop that sleeps makes progress (libheddle-rt makes
//   sched_yield a zero sleep).
// - Priorities are 64-bit random values (ties, vanishingly rare, go to the
//   lower operation id). Data choices are uniform, as in `random`.
#include <vector>

#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

bool writes(point_kind kind) {
  switch (kind) {
    case point_kind::read:
    case point_kind::join:
    case point_kind::start:
    case point_kind::finish:
    case point_kind::fence:
    case point_kind::yield:
    case point_kind::sleep:
    case point_kind::choose:
      return false;
    default:
      return true;
  }
}

bool races(point_kind a, object_id a_object, point_kind b, object_id b_object) {
  return a_object != 0 && a_object == b_object && (writes(a) || writes(b));
}

class pos_strategy final : public strategy {
 public:
  void begin_iteration(std::uint64_t, std::uint64_t seed) override {
    rng_.reseed(seed);
    priority_.clear();
    last_ = {};
  }

  std::size_t next_operation(const decision_context& ctx) override {
    if (ctx.operation_count + 1 > priority_.size()) priority_.resize(ctx.operation_count + 1, 0);
    if (last_.id != 0) {
      // Its next event is a new one; after a sleep it comes after every
      // other event, so a loop that sleeps lets the thread it waits for run.
      priority_[last_.id] = last_.point == point_kind::sleep ? low() : fresh();
      for (const pending_operation& p : ctx.enabled)
        if (p.id != last_.id && races(p.point, p.object, last_.point, last_.object)) priority_[p.id] = fresh();
    }
    std::size_t best = 0;
    for (std::size_t i = 0; i < ctx.enabled.size(); ++i) {
      std::uint64_t& mine = priority_[ctx.enabled[i].id];
      if (mine == 0) mine = fresh();  // an operation seen for the first time
      if (mine > priority_[ctx.enabled[best].id]) best = i;
    }
    last_ = ctx.enabled[best];
    return best;
  }

  std::uint64_t next_value(const decision_context&, const choice& c) override {
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary&) override {}
  std::string describe() const override { return "pos"; }

 private:
  std::uint64_t fresh() { return rng_.next() | 1; }  // never 0, which means "none yet"
  // Below every fresh priority but (almost surely) one in 2^33; still random,
  // so operations that all sleep take turns.
  std::uint64_t low() { return (rng_.next() >> 33) | 1; }

  rng rng_;
  // By operation id: the priority of its pending event; 0 until first seen.
  std::vector<std::uint64_t> priority_;
  // The operation chosen at the previous decision and the point it ran from.
  pending_operation last_;
};

}  // namespace

std::unique_ptr<strategy> make_pos_strategy() { return std::make_unique<pos_strategy>(); }

}  // namespace heddle::detail
