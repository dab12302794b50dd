// `pct:D`: probabilistic concurrency testing.
//
// Burckhardt, Kothari, Musuvathi, Nagarakatte. "A Randomized Scheduler with
// Probabilistic Guarantees of Finding Bugs". ASPLOS 2010.
//
// Each operation gets a random distinct priority; the highest-priority enabled
// operation always runs. D-1 change points are drawn uniformly over the
// iteration's steps; at the i-th one, the operation about to run drops to a
// priority below every initial one (and below earlier change points). A bug of
// depth d is then found with probability at least 1/(n k^(d-1)) per iteration.
//
// Departures from the paper, as in Coyote and Shuttle:
// - k, the number of steps, is not known in advance: it is learned as the most
//   steps seen in earlier iterations of the learning window (32 before the
//   window's first one ends); see strategy::learning_window.
// - Operations created during an iteration get a priority at a uniformly random
//   rank among the enabled operations, instead of all priorities being drawn
//   up front. Finished and blocked operations do not count: a coroutine's every
//   resumption is a new operation that finishes its predecessor
//   (engine::renew), and a rank among those dead predecessors would let a long
//   chain of fresh priorities beat a waiting operation with probability
//   1/(steps+1) instead of halving its chance at each step. Demoted operations
//   count, as in Coyote, where a new operation may land anywhere in the list:
//   otherwise one change point that demotes the waiting operation would hand
//   every later resumption of the other chain the lead, and continuations
//   would again escape PCT's per-operation priorities (docs/strategies.md,
//   "Tasks").
// - Data choices are uniform, as in `random`.
// - An operation about to sleep is demoted (as Coyote does with yields), so
//   loops that sleep make progress.
#include <algorithm>

#include <fmt/format.h>

#include "strategies/change_points.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"
#include "strategies/waiting.hpp"

namespace heddle::detail {
namespace {

class pct_strategy final : public strategy {
 public:
  explicit pct_strategy(unsigned depth) : depth_(depth) {}

  void begin_iteration(std::uint64_t, std::uint64_t seed) override {
    rng_.reseed(seed);
    priority_.clear();
    known_ = 0;
    changes_.draw(rng_, depth_, learned_steps_);
  }

  std::size_t next_operation(const decision_context& ctx) override {
    while (known_ < ctx.operation_count) admit(static_cast<operation_id>(++known_), ctx);
    std::size_t pick = highest(ctx);
    // An operation about to sleep steps aside, as a yielding one does in
    // Coyote: it drops below every other, so a loop that sleeps (libheddle-rt
    // makes sched_yield a zero sleep) lets the thread it waits for run. Not a
    // change point: the bound on depth is unaffected. A plain yield point
    // keeps its priority, so PCT still finds bugs that need one operation to
    // run many steps in a row.
    // One blocked with a deadline steps aside likewise: its timeout is time
    // passing, taken when the others do not run (spdlog's worker, waiting with
    // a timeout in a loop, timed out again and again to --max-steps).
    if (ctx.enabled.size() > 1 && waits(ctx.enabled[pick])) {
      demote(ctx.enabled[pick].id);
      pick = highest(ctx);
    }
    while (changes_.take(ctx.step)) {
      demote(ctx.enabled[pick].id);
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

  std::string describe() const override { return fmt::format("pct:{}", depth_); }
  std::uint64_t learning_window() const override { return default_learning_window; }

 private:
  // Invariant: priority_ lists every operation seen this iteration, highest
  // priority first; a demoted operation goes to the bottom, below every
  // operation there was when it was demoted.
  // `op` goes in at a uniformly random rank among the enabled operations: just
  // above the rank-th of them in priority order, or at the bottom.
  void admit(operation_id op, const decision_context& ctx) {
    auto is_enabled = [&ctx](operation_id other) {
      return std::any_of(ctx.enabled.begin(), ctx.enabled.end(),
                         [other](const pending_operation& p) { return p.id == other; });
    };
    const auto rivals = static_cast<std::size_t>(std::count_if(priority_.begin(), priority_.end(), is_enabled));
    std::size_t rank = rng_.below(rivals + 1);
    auto at = priority_.begin();
    for (; at != priority_.end(); ++at)
      if (is_enabled(*at) && rank-- == 0) break;
    priority_.insert(at, op);
  }

  void demote(operation_id op) {
    priority_.erase(std::find(priority_.begin(), priority_.end(), op));
    priority_.push_back(op);
  }

  // Index in ctx.enabled of the enabled operation with the highest priority.
  std::size_t highest(const decision_context& ctx) const {
    for (operation_id op : priority_)
      for (std::size_t i = 0; i < ctx.enabled.size(); ++i)
        if (ctx.enabled[i].id == op) return i;
    return 0;
  }

  unsigned depth_;
  rng rng_;
  std::vector<operation_id> priority_;
  std::size_t known_ = 0;
  change_points changes_;
  std::uint64_t learned_steps_ = 0;  // most steps seen in any earlier iteration
};

}  // namespace

std::unique_ptr<strategy> make_pct_strategy(unsigned depth) { return std::make_unique<pct_strategy>(depth); }

}  // namespace heddle::detail
