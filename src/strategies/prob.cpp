// `prob:N`: probabilistic switching. At every decision the operation that
// reached the point keeps running unless N fair coin flips all say "switch"
// (probability 2^-N); a switch goes to one of the other enabled operations,
// uniformly. When the current operation is no longer enabled (it blocked or
// finished), the next one is chosen uniformly among the enabled ones.
//
// Coyote's ProbabilisticRandomStrategy (Microsoft, "Coyote: systematic testing
// of concurrent .NET code"); the idea goes back to random walks with a sticky
// bias in model checkers. Few switches per iteration makes it good at bugs that
// need one operation to make a long run of progress before another steps in,
// which uniform `random` almost never produces.
//
// Departures: none in the scheduling rule; data choices are uniform, as in
// `random`.
#include <fmt/format.h>

#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

class prob_strategy final : public strategy {
 public:
  explicit prob_strategy(unsigned flips) : flips_(flips) {}

  void begin_iteration(std::uint64_t, std::uint64_t seed) override { rng_.reseed(seed); }

  std::size_t next_operation(const decision_context& ctx) override {
    const std::size_t n = ctx.enabled.size();
    if (n == 1) return 0;
    std::size_t current = n;  // n: the current operation is not enabled
    for (std::size_t i = 0; i < n; ++i)
      if (ctx.enabled[i].id == ctx.current) current = i;
    if (current == n) return rng_.below(n);
    if (!all_flips_say_switch()) return current;
    // One of the n-1 others, uniformly: skip over the current index.
    const std::size_t other = rng_.below(n - 1);
    return other < current ? other : other + 1;
  }

  std::uint64_t next_value(const decision_context&, const choice& c) override {
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary&) override {}
  std::string describe() const override { return fmt::format("prob:{}", flips_); }

 private:
  // N fair coins, all heads: one draw of N random bits, all set.
  bool all_flips_say_switch() {
    const std::uint64_t mask = (std::uint64_t{1} << flips_) - 1;  // flips_ <= 30
    return (rng_.next() & mask) == mask;
  }

  unsigned flips_;  // 1..30
  rng rng_;
};

}  // namespace

std::unique_ptr<strategy> make_prob_strategy(unsigned flips) { return std::make_unique<prob_strategy>(flips); }

}  // namespace heddle::detail
