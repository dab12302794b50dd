// Spurious events (a condition variable's spurious wake-up, a spurious
// compare_exchange_weak failure) as rare, separate choices: a randomized
// strategy may take one only in a share of the iterations, every fourth one
// after the first 16 (indices 19, 23, 27, ...), and there with the
// probability rng.hpp gives rare values (1/16). In the other iterations every
// rare choice is answered 0 (no spurious event) without asking the strategy.
//
// Why: POSIX allows spurious wake-ups, so a program that waits with
// `if (!done) pthread_cond_wait(...)` has a bug a spurious wake-up shows; but
// when every iteration may take one, that bug hides the program's other bugs
// (the first found is nearly always it), and a bug that needs a long run
// without one (a deadlock after 80,000 steps) is almost never reached. With
// one iteration in four, both kinds are found: the others run as if spurious
// events did not exist. The first 16 take none, so a bug that a few
// iterations find without them is found before any spurious one
// (tests/pushbutton/spurious_wakeup_masks_deadlock.c). The share follows from the iteration's index alone,
// so a seed explores the same schedules in process, in workers, in shards and
// through the fork server, and a trace replays them (the rare choice's value
// is in the trace). Exhaustive strategies (dfs, dpor) are not wrapped: they
// try both values of every rare choice, which is how they prove its absence.
#include <string_view>

#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

class rare_share_strategy final : public strategy {
 public:
  // next_operation only forwards: the inner strategy's inline draws are ours.
  explicit rare_share_strategy(std::unique_ptr<strategy> inner) : inner_(std::move(inner)) {
    uniform_draws_ = inner_->uniform_draws();
  }

  void begin_iteration(std::uint64_t index, std::uint64_t seed) override {
    rare_allowed_ = spurious_events_in_iteration(index);
    inner_->begin_iteration(index, seed);
  }
  std::size_t next_operation(const decision_context& ctx) override { return inner_->next_operation(ctx); }
  std::uint64_t next_value(const decision_context& ctx, const choice& c) override {
    if (c.rare && !rare_allowed_) return 0;
    return inner_->next_value(ctx, c);
  }
  void end_iteration(const iteration_summary& summary) override { inner_->end_iteration(summary); }
  std::string describe() const override { return inner_->describe(); }
  bool is_fair() const override { return inner_->is_fair(); }
  std::uint64_t fair_from() const override { return inner_->fair_from(); }
  bool observes_forced_decisions() const override { return inner_->observes_forced_decisions(); }
  std::uint64_t learning_window() const override { return inner_->learning_window(); }
  bool exhausted() const override { return inner_->exhausted(); }
  std::string stop_reason() const override { return inner_->stop_reason(); }
  std::uint64_t schedules_explored() const override { return inner_->schedules_explored(); }
  std::string search_error() const override { return inner_->search_error(); }

 private:
  std::unique_ptr<strategy> inner_;
  bool rare_allowed_ = false;
};

}  // namespace

bool spurious_events_in_iteration(std::uint64_t index) noexcept { return index >= 16 && index % 4 == 3; }

std::unique_ptr<strategy> with_rare_share(std::string_view spec, std::unique_ptr<strategy> inner) {
  if (spec.starts_with("dfs") || spec.starts_with("dpor")) return inner;
  return std::make_unique<rare_share_strategy>(std::move(inner));
}

}  // namespace heddle::detail
