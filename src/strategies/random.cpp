// `random`: at every decision, an enabled operation chosen uniformly at random;
// data choices uniform (rare events with probability 1/16, see rng.hpp).
//
// The baseline of every CCT tool (Coyote's RandomStrategy, Shuttle's
// RandomScheduler). Not fair in theory, but with probability one it eventually
// schedules every enabled operation, which is why fair(S) falls back to it.
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

class random_strategy final : public strategy {
 public:
  // next_operation is a plain draw: the engine makes it inline (strategy.hpp).
  random_strategy() { uniform_draws_ = &rng_; }
  random_strategy(const random_strategy&) = delete;
  random_strategy& operator=(const random_strategy&) = delete;

  void begin_iteration(std::uint64_t, std::uint64_t seed) override { rng_.reseed(seed); }

  std::size_t next_operation(const decision_context& ctx) override {
    return ctx.enabled.size() == 1 ? 0 : rng_.below(ctx.enabled.size());
  }

  std::uint64_t next_value(const decision_context&, const choice& c) override {
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary&) override {}
  std::string describe() const override { return "random"; }
  bool is_fair() const override { return true; }
  bool observes_forced_decisions() const override { return false; }

 private:
  rng rng_;
};

}  // namespace

std::unique_ptr<strategy> make_random_strategy() { return std::make_unique<random_strategy>(); }

}  // namespace heddle::detail
