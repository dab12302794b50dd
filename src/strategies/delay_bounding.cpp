// `db:D`: randomized delay bounding.
//
// Emmi, Qadeer, Rakamaric. "Delay-Bounded Scheduling". POPL 2011.
//
// A deterministic scheduler runs the program: it keeps running the current
// operation while it is enabled and, when it blocks, finishes or yields, moves
// on round-robin to the next enabled operation in creation order (ascending id,
// wrapping around). A delay skips the operation the deterministic scheduler
// would run: the next enabled one in the round-robin order runs instead, and
// the deterministic scheduler carries on from there. Bugs that need few
// deviations from the deterministic order are found by few delays; the paper
// explores all placements of D delays, and the randomized variant (as in P#
// and Coyote) draws D delay steps uniformly at random per
// iteration instead.
//
// Departures from the paper:
// - Operations, not tasks of a queue: "run to completion" becomes "run until
//   blocked or finished", and a yield or sleep point hands over to the next
//   operation, so programs that spin with this_thread::yield() make progress.
// - The number of steps, over which the D delays are drawn, is learned as the
//   most steps seen in earlier iterations of the learning window (32 before
//   the window's first one ends), as in pct.cpp. Several delays may fall on
//   one step; each skips one more operation.
// - Data choices are uniform, as in `random`.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"
#include "strategies/waiting.hpp"

namespace heddle::detail {
namespace {

class delay_bounding_strategy final : public strategy {
 public:
  explicit delay_bounding_strategy(unsigned delays) : delays_(delays) {}

  void begin_iteration(std::uint64_t, std::uint64_t seed) override {
    rng_.reseed(seed);
    const std::uint64_t k = std::max<std::uint64_t>(learned_steps_, 32);
    delay_steps_.clear();
    for (unsigned i = 0; i < delays_; ++i) delay_steps_.push_back(rng_.below(k));
    std::sort(delay_steps_.begin(), delay_steps_.end());
    next_delay_ = 0;
  }

  std::size_t next_operation(const decision_context& ctx) override {
    std::size_t pick = deterministic(ctx);
    while (next_delay_ < delay_steps_.size() && ctx.step >= delay_steps_[next_delay_]) {
      ++next_delay_;
      pick = (pick + 1) % ctx.enabled.size();  // the delay: skip it
    }
    return pick;
  }

  std::uint64_t next_value(const decision_context&, const choice& c) override {
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary& summary) override {
    learned_steps_ = std::max(learned_steps_, summary.steps);
  }

  std::string describe() const override { return fmt::format("db:{}", delays_); }
  std::uint64_t learning_window() const override { return default_learning_window; }

 private:
  // The deterministic scheduler's choice: the current operation if it is
  // enabled and not yielding; otherwise the first enabled operation after it
  // in creation order, wrapping around (ctx.enabled is ascending by id).
  static std::size_t deterministic(const decision_context& ctx) {
    const std::size_t n = ctx.enabled.size();
    for (std::size_t i = 0; i < n; ++i) {
      const pending_operation& p = ctx.enabled[i];
      if (p.id < ctx.current) continue;
      if (p.id > ctx.current) return i;
      // Stepping aside (waiting.hpp) passes the turn to the next one, as a
      // yield does in the deterministic scheduler delay bounding perturbs.
      return steps_aside(p, ctx.current) ? (i + 1) % n : i;
    }
    return 0;  // nothing after the current operation: wrap around
  }

  unsigned delays_;
  rng rng_;
  std::vector<std::uint64_t> delay_steps_;  // sorted step indices, one per delay
  std::size_t next_delay_ = 0;
  std::uint64_t learned_steps_ = 0;  // most steps seen in any earlier iteration
};

}  // namespace

std::unique_ptr<strategy> make_delay_bounding_strategy(unsigned delays) {
  return std::make_unique<delay_bounding_strategy>(delays);
}

}  // namespace heddle::detail
