// `pctt:D`: PCT over chains of operations (PCT^t).
//
// PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010; see pct.cpp)
// gives every operation a random priority and changes priorities at D-1
// random steps. In task-based code a logical thread of work is not one
// operation but a chain: a task and the continuations it creates, each a new
// operation. Plain PCT gives every link a fresh random rank, so a chain of 50
// links finishing before an independent chain moves needs 50 lucky draws.
// PCT^t gives the priority to the chain (pending_operation::chain, set by the
// engine from relation::continuation), so a continuation inherits its chain's
// priority and the whole chain runs as one PCT thread; a bug of depth d over c
// chains is then found with probability at least 1/(c k^(d-1)), where plain PCT
// would count operations, not chains. The same idea (priorities over chains of
// a decomposition of the happens-before order) underlies PCTCP (Ozkan,
// Majumdar, Oraee, OOPSLA 2018).
//
// Departures, as in pct.cpp:
// - k, the number of steps, is learned as the most steps seen in earlier
//   iterations of the learning window (32 before the window's first one ends).
// - A chain gets its priority when it is first seen enabled, at a uniformly
//   random rank among the chains not yet demoted: each such chain holds an
//   independent random key, which makes the rank of a new one uniform.
// - Within a chain, the enabled operation with the lowest id runs first (the
//   link that created a continuation finishes before it).
// - Data choices are uniform, as in `random`.
// - An operation about to sleep demotes its chain, as pct.cpp demotes it.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "strategies/change_points.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"
#include "strategies/waiting.hpp"

namespace heddle::detail {
namespace {

class pctt_strategy final : public strategy {
 public:
  explicit pctt_strategy(unsigned depth) : depth_(depth) {}

  void begin_iteration(std::uint64_t, std::uint64_t seed) override {
    rng_.reseed(seed);
    key_.clear();
    demotions_ = 0;
    changes_.draw(rng_, depth_, learned_steps_);
  }

  std::size_t next_operation(const decision_context& ctx) override {
    for (const pending_operation& p : ctx.enabled) admit(p.chain);
    std::size_t pick = highest(ctx);
    // An operation about to sleep steps aside with its chain, as in pct.cpp
    // (libheddle-rt makes sched_yield, and a spin on loads, a zero sleep):
    // otherwise a chain that waits in such a loop for a lower one spins to
    // --max-steps (atomic_queue: 38 of 100 iterations cut). Not a change point.
    // A chain blocked with a deadline steps aside likewise, as in pct.cpp.
    if (ctx.enabled.size() > 1 && waits(ctx.enabled[pick])) {
      demote(ctx.enabled[pick].chain);
      pick = highest(ctx);
    }
    while (changes_.take(ctx.step)) {
      demote(ctx.enabled[pick].chain);
      pick = highest(ctx);
    }
    return pick;
  }

  std::uint64_t next_value(const decision_context&, const choice& c) override {
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary& summary) override {
    learned_steps_ = std::max(learned_steps_, summary.steps);
  }

  std::string describe() const override { return fmt::format("pctt:{}", depth_); }
  std::uint64_t learning_window() const override { return default_learning_window; }

 private:
  static constexpr std::uint64_t undemoted_bit = std::uint64_t{1} << 63;

  // A chain's key orders it: keys with undemoted_bit set are the random
  // initial priorities; a demoted chain's key is below every initial one and
  // below every chain demoted before it. 0 means "not seen yet".
  void admit(std::uint32_t chain) {
    if (chain >= key_.size()) key_.resize(chain + 1, 0);
    if (key_[chain] == 0) key_[chain] = (rng_.next() >> 1) | undemoted_bit;
  }

  void demote(std::uint32_t chain) { key_[chain] = undemoted_bit - 1 - ++demotions_; }

  // Index in ctx.enabled of the first operation (lowest id) of the enabled
  // chain with the highest key.
  std::size_t highest(const decision_context& ctx) const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < ctx.enabled.size(); ++i)
      if (key_[ctx.enabled[i].chain] > key_[ctx.enabled[best].chain]) best = i;
    return best;
  }

  unsigned depth_;
  rng rng_;
  std::vector<std::uint64_t> key_;  // by chain id (the id of the chain's first operation)
  std::uint64_t demotions_ = 0;
  change_points changes_;
  std::uint64_t learned_steps_ = 0;  // most steps seen in any earlier iteration
};

}  // namespace

std::unique_ptr<strategy> make_pctt_strategy(unsigned depth) { return std::make_unique<pctt_strategy>(depth); }

}  // namespace heddle::detail
