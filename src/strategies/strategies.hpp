// Factories of the built-in strategies. The registry (registry.cpp) maps spec
// strings onto these; nothing else should name a concrete strategy.
#pragma once

#include <memory>
#include <vector>

#include "engine/strategy.hpp"

namespace heddle::detail {

std::unique_ptr<strategy> make_random_strategy();
std::unique_ptr<strategy> make_pct_strategy(unsigned depth);
// Exhaustive search (dfs.cpp, dpor.cpp); no bound = plain dfs.
std::unique_ptr<strategy> make_dfs_strategy(std::optional<unsigned> preemption_bound);
// weak_memory: memory_model::rc11, whose reads-from and mo choices dpor
// explores and counts as executions (dpor_executions.cpp).
std::unique_ptr<strategy> make_dpor_strategy(bool weak_memory = false);
std::unique_ptr<strategy> make_prob_strategy(unsigned flips);
std::unique_ptr<strategy> make_pctt_strategy(unsigned depth);
std::unique_ptr<strategy> make_pos_strategy();
std::unique_ptr<strategy> make_delay_bounding_strategy(unsigned delays);
// `arg` is what stands between the parentheses of fair(...), if anything.
std::unique_ptr<strategy> make_fair_strategy(std::string_view spec, std::optional<std::string_view> arg,
                                             const strategy_config& config);
std::unique_ptr<strategy> make_portfolio_strategy(const strategy_config& config);
// The spec of the portfolio member that runs iteration `iteration`.
std::string portfolio_member(std::uint64_t iteration);
std::unique_ptr<strategy> make_ql_strategy();
std::unique_ptr<strategy> make_surw_strategy();
// Spurious events only in a share of the iterations (rare_share.cpp);
// exhaustive specs (dfs, dpor) come back unwrapped.
std::unique_ptr<strategy> with_rare_share(std::string_view spec, std::unique_ptr<strategy> inner);
bool spurious_events_in_iteration(std::uint64_t index) noexcept;

// Follows recorded decisions and checks each against what the program does.
class replay_strategy final : public strategy {
 public:
  explicit replay_strategy(std::vector<trace_step> steps, std::string recorded_spec = "replay");
  void begin_iteration(std::uint64_t index, std::uint64_t seed) override;
  std::size_t next_operation(const decision_context& ctx) override;
  std::uint64_t next_value(const decision_context& ctx, const choice& c) override;
  void end_iteration(const iteration_summary&) override {}
  std::string describe() const override { return recorded_spec_; }
  std::string stop_reason() const override { return divergence_; }
  // The recorded strategy's (fair(S,after=N): N), so that a liveness monitor
  // judges the replayed iteration as it judged the recorded one.
  std::uint64_t fair_from() const override { return fair_from_; }
  // Decisions the trace holds that the program did not reach.
  std::size_t remaining() const noexcept { return steps_.size() - position_; }
  bool diverged() const noexcept { return !divergence_.empty(); }

 private:
  bool matches(const trace_step& expected, step_kind kind, point_kind point, object_id object,
               const char* what);
  std::vector<trace_step> steps_;
  std::string recorded_spec_;
  std::uint64_t fair_from_ = ~std::uint64_t{0};
  std::size_t position_ = 0;
  std::string divergence_;
};

}  // namespace heddle::detail
