// `surw`: selectively uniform random walk.
//
// Zhao, Wolff, Mathur, Roychoudhury. "Selectively Uniform Concurrency
// Testing". ASPLOS 2025; followed here as their artifact (zhaohuanqdcn/SURW,
// src/main.zig, configuration `rp-urw`) and Fray's port implement it.
//
// Uniform random walk (URW): if operation i has w_i events left, choosing i
// with probability w_i / sum(w) samples every interleaving of the remaining
// events with equal probability, unlike `random`, which favours interleavings
// where the short operations finish early. SURW applies this only to a chosen
// set of *interesting* events and schedules the others with a second algorithm
// (random priorities, "rp"), so uniformity is spent where races are:
// - A profiling iteration (the first of the run) schedules everything with rp
//   and records, per operation, its accesses to each object and which
//   operation created it. Interesting objects are those that two or more
//   operations access, at least one of them writing (the artifact's
//   get_event_subset.py drops read-only memory the same way). An interesting
//   event is an access to one. An operation's weight w is its own interesting
//   events plus the weights of the operations it creates.
// - Every later decision: the enabled, not set-aside operation of highest rp
//   priority is the candidate. If its pending event is not interesting it runs
//   and its priority is redrawn. If it is interesting, a target is drawn (once)
//   by URW over the enabled operations, weighted by w; the candidate runs only if
//   it is the target (then w--, the target is cleared and set-aside operations
//   return), otherwise it is set aside and the next candidate is tried. When
//   every enabled operation is set aside (the target cannot run), all return and
//   the target is redrawn.
// - When an operation appears, its parent's w drops by the child's weight and,
//   if the parent was the target, the target moves to the child with
//   probability w_child / w_parent, so sampling stays uniform across creation.
// - An operation whose pending event is interesting gets w >= 1; after 1000
//   decisions in a row for one operation, priorities are redrawn (the
//   artifact's starvation guard for busy-waiting).
//
// Departures from the paper and its artifact:
// - Events are heddle's scheduling points, and objects are heddle object ids
//   (stable while a program creates its objects in a schedule-independent
//   order), not instruction and memory addresses.
// - Interesting accesses are memory accesses (read, write, read-modify-write
//   on atomics and heddle::shared) and lock operations (acquire as a read,
//   release as a write, the artifact's `lock_addr` method) together, where the
//   artifact configures one kind per run; heddle's bug suite needs both.
// - The profile is the first iteration of each learning window (64
//   consecutive indices, strategy::learning_window), whatever its outcome, so
//   the run learns the same wherever its iterations run; an operation the
//   profile never saw starts at w = 0 (as in the artifact).
// - Data choices are uniform, as in `random`.
// - The starvation guard also redraws every priority when an enabled
//   operation has waited 1000 decisions: rp redraws only the priority of the
//   operation that ran, so two operations that take turns (an actor and its
//   own mock timer) kept a third with a low priority waiting for thousands of
//   steps, and the iteration ended at max_steps.
#include <algorithm>
#include <limits>
#include <map>
#include <unordered_set>
#include <vector>

#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

constexpr std::uint64_t starvation_limit = 1000;
// How long an enabled operation may wait, not chosen, before every priority
// is redrawn.
constexpr std::uint64_t waiting_limit = 100;

// Reads and writes as SURW sees them; other points are never interesting.
enum class access { none, read, write };
access access_of(point_kind kind) noexcept {
  switch (kind) {
    case point_kind::read:
    case point_kind::acquire:
    case point_kind::acquire_shared:
      return access::read;
    case point_kind::write:
    case point_kind::rmw:
    case point_kind::release:
    case point_kind::release_shared:
      return access::write;
    default:
      return access::none;
  }
}

class surw_strategy final : public strategy {
 public:
  void begin_iteration(std::uint64_t, std::uint64_t seed) override {
    rng_.reseed(seed);
    ops_.assign(1, {});
    target_ = 0;
    last_ = 0;
    stay_ = 0;
  }

  std::size_t next_operation(const decision_context& ctx) override {
    admit(ctx);
    std::size_t pick = choose(ctx);
    const operation_id chosen = ctx.enabled[pick].id;
    if (!profiled_) record(ctx.enabled[pick]);
    stay_ = chosen == last_ ? stay_ + 1 : 0;
    last_ = chosen;
    const bool starving = waited_too_long(ctx);
    ops_[chosen].waiting_since = ctx.step + 1;
    if (stay_ >= starvation_limit || starving) {
      for (op_state& s : ops_) {
        s.has_priority = false;
        s.waiting_since = ctx.step + 1;
      }
      release_set_aside();
      stay_ = 0;
    }
    return pick;
  }

  std::uint64_t next_value(const decision_context&, const choice& c) override {
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary&) override {
    if (!profiled_) finish_profile();
  }

  std::string describe() const override { return "surw"; }
  std::uint64_t learning_window() const override { return default_learning_window; }

 private:
  // Per operation, this iteration.
  struct op_state {
    std::uint64_t events_left = 0;  // w: interesting events still expected
    std::uint64_t priority = 0;     // rp priority, drawn when first needed
    bool has_priority = false;
    bool set_aside = false;  // candidate while another operation was the target
    // Enabled without running since this decision (when it was enabled at
    // the previous one, too), and that decision.
    std::uint64_t waiting_since = 0;
    std::uint64_t last_enabled = std::numeric_limits<std::uint64_t>::max() - 1;  // never
  };

  // Whether an enabled operation has waited waiting_limit decisions in a
  // row, enabled and not chosen.
  bool waited_too_long(const decision_context& ctx) {
    bool starving = false;
    for (const pending_operation& p : ctx.enabled) {
      op_state& s = ops_[p.id];
      if (s.last_enabled + 1 != ctx.step) s.waiting_since = ctx.step;
      s.last_enabled = ctx.step;
      starving = starving || ctx.step - s.waiting_since >= waiting_limit;
    }
    return starving;
  }

  // New operations: weights from the profile, taken out of the parent's.
  void admit(const decision_context& ctx) {
    for (const pending_operation& p : ctx.enabled) {
      if (p.id < ops_.size()) continue;
      ops_.resize(p.id + 1);
      const std::uint64_t child = p.id < weight_.size() ? weight_[p.id] : 0;
      ops_[p.id].events_left = child;
      if (!profiled_) {
        if (parent_.size() <= p.id) parent_.resize(p.id + 1);
        parent_[p.id] = p.parent;
      }
      if (p.parent == 0 || p.parent >= ops_.size()) continue;
      op_state& parent = ops_[p.parent];
      if (parent.events_left == 0) continue;
      if (target_ == p.parent && child >= rng_.below(parent.events_left) + 1) target_ = p.id;
      parent.events_left -= std::min(parent.events_left, child);
    }
  }

  bool interesting(const pending_operation& p) const {
    return profiled_ && access_of(p.point) != access::none && interesting_.contains(p.object);
  }

  std::size_t choose(const decision_context& ctx) {
    if (ctx.enabled.size() == 1) {
      settle(ctx.enabled[0]);
      return 0;
    }
    for (;;) {
      std::size_t best = ctx.enabled.size();
      for (std::size_t i = 0; i < ctx.enabled.size(); ++i) {
        op_state& s = ops_[ctx.enabled[i].id];
        if (s.set_aside) continue;
        if (!s.has_priority) {
          s.priority = rng_.next();
          s.has_priority = true;
        }
        if (best == ctx.enabled.size() || s.priority > ops_[ctx.enabled[best].id].priority) best = i;
      }
      if (best == ctx.enabled.size()) {  // the target cannot run now: draw again
        release_set_aside();
        continue;
      }
      const pending_operation& candidate = ctx.enabled[best];
      op_state& s = ops_[candidate.id];
      if (!interesting(candidate)) {
        s.has_priority = false;  // rp: a fresh priority after every event
        return best;
      }
      if (s.events_left == 0) s.events_left = 1;
      if (target_ == 0) target_ = uniform_walk_target(ctx);
      if (candidate.id != target_) {
        s.set_aside = true;
        continue;
      }
      --s.events_left;
      release_set_aside();
      return best;
    }
  }

  // A single enabled operation runs whatever the target: the loop in choose()
  // would set it aside, release everything, draw it as the target and run it.
  void settle(const pending_operation& p) {
    op_state& s = ops_[p.id];
    if (!interesting(p)) {
      s.has_priority = false;
      return;
    }
    s.events_left = std::max<std::uint64_t>(s.events_left, 1) - 1;
    release_set_aside();
  }

  void release_set_aside() {
    target_ = 0;
    for (op_state& s : ops_) s.set_aside = false;
  }

  // URW: an enabled, not set-aside operation with probability proportional to
  // its events left. The candidate has w >= 1, so the total is positive.
  operation_id uniform_walk_target(const decision_context& ctx) {
    std::uint64_t total = 0;
    for (const pending_operation& p : ctx.enabled)
      if (!ops_[p.id].set_aside) total += ops_[p.id].events_left;
    std::uint64_t r = rng_.below(total);
    for (const pending_operation& p : ctx.enabled) {
      const op_state& s = ops_[p.id];
      if (s.set_aside) continue;
      if (r < s.events_left) return p.id;
      r -= s.events_left;
    }
    return 0;  // unreachable
  }

  void record(const pending_operation& p) {
    const access a = access_of(p.point);
    if (a == access::none || p.object == 0) return;
    object_profile& o = profile_[p.object];
    o.accessors.insert(p.id);
    o.written = o.written || a == access::write;
    ++o.accesses_by[p.id];
  }

  void finish_profile() {
    profiled_ = true;
    std::vector<std::uint64_t> own(parent_.size(), 0);
    for (const auto& [object, o] : profile_) {
      if (o.accessors.size() < 2 || !o.written) continue;
      interesting_.insert(object);
      for (const auto& [op, count] : o.accesses_by)
        if (op < own.size()) own[op] += count;
    }
    // Children have larger ids than their parents: add them up from the end.
    weight_ = own;
    for (std::size_t op = weight_.size(); op-- > 1;)
      if (parent_[op] != 0 && parent_[op] < op) weight_[parent_[op]] += weight_[op];
    profile_.clear();
  }

  struct object_profile {
    std::unordered_set<operation_id> accessors;
    bool written = false;
    std::map<operation_id, std::uint64_t> accesses_by;
  };

  rng rng_;
  // Learned from the profiling iteration and kept for the rest of the run.
  bool profiled_ = false;
  std::map<object_id, object_profile> profile_;  // while profiling
  std::vector<operation_id> parent_;             // operation -> its creator
  std::unordered_set<object_id> interesting_;
  std::vector<std::uint64_t> weight_;  // operation -> own + descendants' events
  // This iteration. Invariant: target_ is 0 or an operation drawn by URW that
  // has not run its interesting event yet; set-aside flags are only set while
  // target_ != 0.
  std::vector<op_state> ops_;  // indexed by operation id (0 unused)
  operation_id target_ = 0;
  operation_id last_ = 0;
  std::uint64_t stay_ = 0;
};

}  // namespace

std::unique_ptr<strategy> make_surw_strategy() { return std::make_unique<surw_strategy>(); }

}  // namespace heddle::detail
