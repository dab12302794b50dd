// `fair(S)`: S for the first `fair_after` steps of every iteration, then
// uniform random; for liveness checking.
//
// A liveness check needs a fair scheduler: one that never keeps an enabled
// operation waiting forever, or "operation 2 never gets the lock" is just the
// strategy's doing. Most bug-finding strategies are unfair on purpose (PCT
// lets the highest priority run; prob:N rarely switches). This wrapper keeps
// S's search for the first part of an iteration and then hands over to uniform
// random choice, which runs every enabled operation with probability 1 - 2^-g
// within g steps when two are enabled. Coyote checks liveness the same way: a
// prefix of steps under the chosen strategy, then a fair random suffix.
//
// Spec: `fair(S)`, or `fair(S,after=N)` to give the budget in the spec; without
// it the run's option fair_after (HEDDLE_FAIR_AFTER, --fair-after) applies.
// describe() prints the budget whenever it is not the default, so the spec
// recreates the strategy.
#include <charconv>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

class fair_strategy final : public strategy {
 public:
  fair_strategy(std::unique_ptr<strategy> inner, std::uint64_t budget) : inner_(std::move(inner)), budget_(budget) {}

  void begin_iteration(std::uint64_t index, std::uint64_t seed) override {
    inner_->begin_iteration(index, seed);
    std::uint64_t mixed = seed ^ 0x6661697221ull;  // a stream apart from the inner strategy's
    rng_.reseed(splitmix64(mixed));
  }

  std::size_t next_operation(const decision_context& ctx) override {
    if (ctx.step < budget_) return inner_->next_operation(ctx);
    return ctx.enabled.size() == 1 ? 0 : rng_.below(ctx.enabled.size());
  }

  std::uint64_t next_value(const decision_context& ctx, const choice& c) override {
    if (ctx.step < budget_) return inner_->next_value(ctx, c);
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary& summary) override { inner_->end_iteration(summary); }

  std::string describe() const override {
    if (budget_ == strategy_config{}.fair_after) return fmt::format("fair({})", inner_->describe());
    return fmt::format("fair({},after={})", inner_->describe(), budget_);
  }

  bool is_fair() const override { return true; }
  std::uint64_t fair_from() const override { return budget_; }
  std::uint64_t learning_window() const override { return inner_->learning_window(); }
  std::string stop_reason() const override { return inner_->stop_reason(); }

 private:
  std::unique_ptr<strategy> inner_;
  std::uint64_t budget_;  // steps of each iteration left to inner_
  rng rng_;
};

}  // namespace

std::unique_ptr<strategy> make_fair_strategy(std::string_view spec, std::optional<std::string_view> arg,
                                             const strategy_config& config) {
  if (!arg || arg->empty())
    throw usage_error(fmt::format("bad strategy spec '{}': expected fair(S), a strategy S between the parentheses, "
                                  "e.g. fair(pct:3) or fair(pct:3,after=5000)",
                                  spec));
  std::string_view inner = *arg;
  std::uint64_t budget = config.fair_after;
  // ",after=N" at the top level (not inside a nested spec's parentheses).
  int depth = 0;
  std::size_t comma = std::string_view::npos;
  for (std::size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] == '(') ++depth;
    if (inner[i] == ')') --depth;
    if (inner[i] == ',' && depth == 0) comma = i;
  }
  if (comma != std::string_view::npos) {
    std::string_view option = inner.substr(comma + 1);
    inner = inner.substr(0, comma);
    constexpr std::string_view key = "after=";
    const std::string_view digits = option.starts_with(key) ? option.substr(key.size()) : std::string_view{};
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), budget);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
      throw usage_error(fmt::format("bad strategy spec '{}': expected ',after=N' (N = steps before random takes "
                                    "over, a whole number) after the inner strategy, not ',{}'",
                                    spec, option));
  }
  std::unique_ptr<strategy> s;
  try {
    s = make_strategy(inner, config);
  } catch (const usage_error& e) {
    throw usage_error(fmt::format("bad strategy spec '{}': the inner strategy is not valid: {}", spec, e.what()));
  }
  return std::make_unique<fair_strategy>(std::move(s), budget);
}

}  // namespace heddle::detail
