// The interface every exploration strategy implements (DESIGN.md section 7).
//
// The engine calls a strategy at every decision: which enabled operation runs
// next, or which value a data choice takes. A strategy sees the pending point
// of every enabled operation and the chain each belongs to; it never touches a
// backend or a model. Strategies keep no global state: everything lives in the
// object, so several can run in one process.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "heddle/bug.hpp"
#include "heddle/model.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

class rng;  // engine/rng.hpp

// An operation the strategy may choose, with what it is about to do.
// 32 bytes (28 used): the engine takes the enabled set's size and indexes it
// at every decision, by a shift at this size and by a multiplication at 24.
struct alignas(32) pending_operation {
  operation_id id = 0;
  std::uint32_t chain = 0;  // operations of one chain share PCT^t priorities
  operation_id parent = 0;  // the operation that created it (0 for operation 1)
  point_kind point = point_kind::start;
  object_id object = 0;
  bool timed = false;  // blocked, but its deadline may pass if chosen (timeout)
  // Paused at a blocking lock of `object` (heddle::lock_point). The engine
  // offers it to the strategy only while the object has no owner or is its
  // own, so a strategy never sees it while it could only block.
  bool lock = false;
  // The engine's record of it (engine.hpp, operation_label): not part of what
  // a strategy decides on.
  std::uint32_t record = 0;
};

// memory_model::rc11: the atomic access the running step made, as the rc11
// model recorded it (engine/weak_memory.cpp), for dpor's dependence between
// atomic accesses (dpor_races.cpp). Stores are named as in
// weak_memory::execution(): by operation and index, 0 for a location's
// initial store.
struct weak_access {
  enum class what : std::uint8_t { none, load, store, rmw, fence };
  // Accesses made so far (never reset): a strategy tells a new access from the
  // one it saw last, and a step that made more than one.
  std::uint64_t seq = 0;
  what kind = what::none;  // a read-modify-write that did not write is a load
  bool sc = false;         // memory_order_seq_cst
  object_id object = 0;
  std::uint64_t read = 0;     // load, rmw: the store read
  std::uint64_t written = 0;  // store, rmw: the store made
  std::uint64_t pred = 0;     // store, rmw: the store right before it in mo when placed
  bool newest = false;        // store, rmw: placed last in mo
};

struct decision_context {
  std::span<const pending_operation> enabled;  // ascending by id, never empty
  operation_id current = 0;  // the operation that reached the point (may now be blocked or finished)
  std::uint64_t step = 0;    // index of this decision in the iteration
  std::size_t operation_count = 0;  // operations created so far
  std::uint64_t user_state_hash = 0;  // what the test mixed in with heddle::state_hash
  // `current` has finished (this decision is taken as it ends). Given here,
  // not asked of the live engine, so a strategy also works in the fork
  // server's parent, which sees only this context.
  bool current_finished = false;
  // Where `current` is paused now: its pending point, or the point it blocked
  // at. dpor tells a failed attempt (blocked where its step began) from a step
  // that went on and blocked at a later wait (a load, then a join). Known
  // when current_point_known (the fork server logs it for its parent too).
  point_kind current_point = point_kind::start;
  object_id current_object = 0;
  bool current_point_known = false;
  // memory_model::rc11: the rc11 model's record of the last atomic access
  // (null before the iteration's first, and under sc).
  const weak_access* weak = nullptr;
};

// A data choice: a value in [0, bound).
struct choice {
  step_kind kind = step_kind::choose_int;
  std::uint64_t bound = 2;
  bool rare = false;  // a spurious event: random strategies take value 1 seldom
  point_kind point = point_kind::choose;
  object_id object = 0;
  // Where the choice is made (a hash of the call site's source location or
  // code address; 0 when unknown), so that systematic strategies can explore a
  // rare event once per site and schedule instead of at every pass of a loop.
  std::uint64_t site = 0;
  // memory_model::rc11, a memory-model choice (point read or write): for each
  // value, the store it names (weak_access's names): the store a load would
  // read, or the store a store would be placed right after in mo. Null otherwise.
  const std::uint64_t* names = nullptr;
};

struct iteration_summary {
  std::uint64_t steps = 0;
  bool bug = false;
  bool hit_max_steps = false;
  // memory_model::rc11: the identity of the iteration's reads-from and
  // modification order (engine/weak_memory.hpp), 0 when no atomic was used.
  std::uint64_t weak_execution = 0;
};

class strategy {
 public:
  virtual ~strategy() = default;

  // What next_operation and next_value return to stop the iteration;
  // stop_reason() then says why (a replay divergence, an exhausted search).
  // A sentinel, not std::optional: these are called at every decision, and an
  // optional returned through a virtual call is built byte-wise on the stack
  // and read back as a word, a store-forwarding stall that cost 12% of a
  // decision (docs/performance.md).
  static constexpr std::uint64_t stop = ~std::uint64_t{0};

  virtual void begin_iteration(std::uint64_t index, std::uint64_t seed) = 0;
  // The operation to run next, as an index into ctx.enabled, or `stop`.
  virtual std::size_t next_operation(const decision_context& ctx) = 0;
  // The value of a data choice, below c.bound, or `stop`.
  virtual std::uint64_t next_value(const decision_context& ctx, const choice& c) = 0;
  virtual void end_iteration(const iteration_summary& summary) = 0;

  // The spec string that recreates this strategy ("pct:3").
  virtual std::string describe() const = 0;
  // A fair strategy eventually runs every enabled operation (liveness checking).
  virtual bool is_fair() const { return false; }
  // The first step from which the strategy is fair within an iteration
  // (fair(S): S's budget), or never (~0) for a strategy that is not. The
  // actor runtime's liveness monitors count temperature only from there.
  // Asked once per iteration.
  virtual std::uint64_t fair_from() const { return ~std::uint64_t{0}; }
  // False when, with a single operation offered, the strategy returns 0 and
  // changes no state of its own: the engine then takes such a forced decision
  // without calling it (with the CHESS rule, a good part of all decisions).
  // Asked once per iteration.
  virtual bool observes_forced_decisions() const { return true; }
  // Non-null for a strategy whose next_operation, with n > 1 operations
  // offered, is exactly `return g.below(n)` for this generator g and changes
  // nothing else (`random`): the engine then draws from g itself, inline,
  // instead of making the virtual call at every decision. The same draws in
  // the same order, so the same schedules and traces. Asked once per iteration.
  rng* uniform_draws() const noexcept { return uniform_draws_; }
  // How many consecutive iterations learn from each other (docs/running.md,
  // "Same seed, same result"). Iteration i's decisions may depend on what the
  // strategy learned from the iterations of its window before it, never on
  // others: the runner starts a fresh strategy at every index that is a
  // multiple of the window, and wherever a window's run was cut (a crash ended
  // a worker). 1: the strategy learns nothing (each iteration depends only on
  // its index and seed). 0: one window, the whole run (dfs, dpor), which then
  // cannot be split between workers or shards.
  virtual std::uint64_t learning_window() const { return 1; }
  // True once a systematic strategy has explored its whole space.
  virtual bool exhausted() const { return false; }
  virtual std::string stop_reason() const { return {}; }
  // Systematic strategies: complete schedules explored so far (an iteration a
  // strategy stopped is none), and why the search cannot go on (a program that
  // does not replay deterministically), which ends the run.
  virtual std::uint64_t schedules_explored() const { return 0; }
  // schedules_explored() counts executions, each once whatever schedules made
  // it (dpor under rc11), rather than schedules.
  virtual bool counts_executions() const { return false; }
  virtual std::string search_error() const { return {}; }
  // Systematic strategies: rare choices (spurious wake-ups and
  // compare-exchange failures) left at their usual value without exploring
  // the other, because the same site already took a spurious one earlier in
  // that schedule. Non-zero means the verdict covers spurious events once per
  // site, not every combination.
  virtual std::uint64_t bounded_choices() const { return 0; }
  // dpor: iterations in which an operation was held back from repeating a
  // try of a wait loop that saw nothing change. Non-zero means the verdict
  // assumes such tries have no effect but their reads.
  virtual std::uint64_t held_wait_iterations() const { return 0; }

 protected:
  rng* uniform_draws_ = nullptr;  // see uniform_draws()
};

// The window of the strategies that learn (pct, pctt, db: the step count;
// surw: its profile; ql: its Q-table; portfolio: its members). Chosen on the
// bug suite (docs/strategies.md): long enough that learning pays off, short
// enough that a run of a few thousand iterations splits between workers.
inline constexpr std::uint64_t default_learning_window = 64;

// What strategies take from the run's options besides their spec.
struct strategy_config {
  std::uint64_t fair_after = 10000;  // fair(S): steps of S before random takes over
  // memory_model::rc11: loads choose among stores, so dpor's dependence and
  // what it counts as one execution change (dpor.cpp).
  bool weak_memory = false;
};

// Builds a strategy from its spec; throws heddle::usage_error naming the problem.
std::unique_ptr<strategy> make_strategy(std::string_view spec, const strategy_config& config = {});

}  // namespace heddle::detail
