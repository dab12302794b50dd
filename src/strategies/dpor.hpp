// dpor's shared parts (dpor.cpp runs the search, dpor_races.cpp finds the
// races after each iteration): what a step touches (footprint), the steps of
// an iteration (step_event), the search stack (decision), and the strategy's
// state. Internal to src/strategies.
#pragma once

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "strategies/spurious_sites.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail::dpor_impl {

inline constexpr std::size_t no_step = std::numeric_limits<std::size_t>::max();

enum class access : std::uint8_t { none, read, shared, write };

inline access mode_of(point_kind k) {
  switch (k) {
    case point_kind::read:
    case point_kind::join: return access::read;
    case point_kind::acquire_shared:
    case point_kind::release_shared: return access::shared;
    case point_kind::start:
    case point_kind::finish:
    case point_kind::yield:
    case point_kind::fence:
    case point_kind::choose: return access::none;
    default: return access::write;
  }
}
inline bool conflict(access a, access b) {
  return a != access::none && b != access::none && !(a == access::read && b == access::read) &&
         !(a == access::shared && b == access::shared);
}
inline bool pure_attempt(point_kind k) {
  return k == point_kind::acquire || k == point_kind::acquire_shared || k == point_kind::wait ||
         k == point_kind::join || k == point_kind::read;
}
inline bool release_like(point_kind k) {
  return k == point_kind::release || k == point_kind::release_shared || k == point_kind::signal;
}
inline bool acquire_like(point_kind k) {
  return k == point_kind::acquire || k == point_kind::acquire_shared || k == point_kind::wait;
}

// What a step does (or a sleeping operation's pending step would do), as far as dependence goes.
struct footprint {
  operation_id op = 0;
  point_kind kind = point_kind::start;
  object_id object = 0;
  object_id blocked_on = 0;  // a visible step that blocked: the object it then waited on
  bool global = false;       // moves the virtual clock or touches what is not known
  bool invisible = false;    // a failed attempt
  bool finishes = false;
  bool lock = false;         // a blocking lock, offered only while its object is free
  // rc11 (dpor_races.cpp, "Atomic accesses under rc11"): the atomic access
  // the step made, learned once it ran (weak_access), none for every other step.
  weak_access::what wk = weak_access::what::none;
  bool sc = false;
  std::uint64_t rf = 0;     // load, rmw: the store read
  std::uint64_t wrote = 0;  // store, rmw: the store made
  std::uint64_t pred = 0;   // store, rmw: placed right after this store in mo
  bool newest = false;      // store, rmw: placed last in mo
  // An access weaker than seq_cst, or a fence, with none before it in the
  // iteration (or one may have been, in a step of several accesses): it
  // ends the iteration's seq_cst prefix, in which a seq_cst load reads the
  // newest store and a seq_cst store goes last; after it they may read, or
  // go, older (weak_memory.hpp, "The prefix").
  bool ends_prefix = false;
  // A sleeping atomic access (sleep entries only): the stores made since it
  // was put to sleep that give it outcomes it has not explored: loads that
  // may read them, stores that may be placed right after them. Empty: it is
  // wholly asleep; otherwise it may run, taking only those outcomes.
  std::vector<std::uint64_t> fresh;
  // load: the stores it could read (a store placed right after one of them,
  // or after a fresh one, is one it may now read).
  std::vector<std::uint64_t> cands;
};

inline footprint pending_footprint(const pending_operation& p) {
  return {p.id, p.point, p.object, 0, p.timed, false, false, p.lock};
}

struct step_event {
  footprint f;
  std::size_t node = 0;      // its decision in the stack
  std::size_t failed = no_step;  // a retry: the failed attempt before it
  std::size_t waker = no_step;   // a retry: the step after which its operation was woken
  std::size_t po_prev = no_step;  // the previous visible step of its operation
  std::uint32_t local = 0;     // 1-based index among its operation's visible steps
  bool chose = false;          // made a data choice that is not the memory model's (its value is not in f)
};

struct decision {
  bool data = false;
  std::uint64_t offered = 0;  // data choice: its bound
  std::uint64_t bound = 0;    // the values explored, [0, bound): 1 for a rare choice bounded by its site
  std::uint64_t value = 0;
  std::vector<pending_operation> enabled;  // schedule decision, as offered
  std::vector<footprint> sleep;             // the sleep set on entry
  std::vector<operation_id> backtrack;      // to explore here
  std::vector<operation_id> explored;       // explored here; back() is the current choice
  std::vector<footprint> explored_fp;       // rc11: by explored op, the atomic access its step made
  // rc11, a memory-model choice of an operation partly asleep: the values it
  // explores (those naming fresh stores), allowed[at] being the current one.
  std::vector<std::uint64_t> allowed;
  std::size_t at = 0;
  // rc11, a schedule decision: the store placements that an operation
  // explored here must take in its step (Optimal DPOR's wakeup sequences,
  // as far as the store's place in mo). A race of a load with a later store
  // that it could read adds the store's operation here with the place the
  // store had ("right after" that name); anything else adds it unrestricted
  // (`any`). An operation explored already with some places gets the others
  // in a later exploration (backtrack()).
  struct carry {
    operation_id op = 0;
    bool any = false;
    std::vector<std::uint64_t> names;  // wanted
    bool done_any = false;
    std::vector<std::uint64_t> done;   // explored
  };
  std::vector<carry> carries;
  // The places explored.back()'s step may take: all (but cur_skip) or cur_names.
  bool cur_any = true;
  std::vector<std::uint64_t> cur_names, cur_skip;
  carry* carry_of(operation_id op) {
    for (carry& c : carries)
      if (c.op == op) return &c;
    return nullptr;
  }
  // A reversal wants op here, taking place `name` (or any place).
  void want(operation_id op, bool any_place, std::uint64_t name) {
    carry* c = carry_of(op);
    if (c == nullptr) {
      // Explored already without a carry: it took every place.
      if (std::find(explored.begin(), explored.end(), op) != explored.end()) return;
      carries.push_back({op});
      c = &carries.back();
    }
    if (any_place) c->any = true;
    else if (std::find(c->names.begin(), c->names.end(), name) == c->names.end()) c->names.push_back(name);
  }
  // Starts exploring op here (first time): takes what it was wanted for.
  void begin(operation_id op) {
    carry* c = carry_of(op);
    cur_skip.clear();
    cur_names.clear();
    cur_any = c == nullptr || c->any;
    if (c == nullptr) return;
    if (cur_any) c->done_any = true;
    else cur_names = c->names;
    c->done = c->names;
  }
  // An operation explored here that is wanted for places it has not taken:
  // explores it again with those (true), or false.
  bool reopen() {
    for (carry& c : carries) {
      if (c.done_any || std::find(explored.begin(), explored.end(), c.op) == explored.end()) continue;
      cur_names.clear();
      cur_skip.clear();
      if (c.any) {
        cur_any = true;
        cur_skip = c.done;
        c.done_any = true;
      } else {
        cur_any = false;
        for (std::uint64_t n : c.names)
          if (std::find(c.done.begin(), c.done.end(), n) == c.done.end()) cur_names.push_back(n);
        if (cur_names.empty()) continue;
        c.done.insert(c.done.end(), cur_names.begin(), cur_names.end());
      }
      explored.push_back(c.op);
      return true;
    }
    return false;
  }
  bool place_allowed(std::uint64_t name) const {
    auto has = [](const std::vector<std::uint64_t>& v, std::uint64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    return cur_any ? !has(cur_skip, name) : has(cur_names, name);
  }
  // op is wholly asleep (a sleeping atomic access with fresh outcomes is not).
  bool asleep(operation_id op) const {
    return std::any_of(sleep.begin(), sleep.end(), [op](const footprint& f) { return f.op == op && f.fresh.empty(); });
  }
  // op's sleep entry when it is partly asleep, else null.
  const footprint* partly_asleep(operation_id op) const {
    for (const footprint& f : sleep)
      if (f.op == op && !f.fresh.empty()) return &f;
    return nullptr;
  }
  // Operations held back here: their last try of a wait loop repeated the
  // one before it with nothing it read changed in between (dpor.cpp, "Wait
  // loops"). A reversal does not start with one.
  std::vector<operation_id> held;
  bool offers(operation_id op) const {
    return std::any_of(enabled.begin(), enabled.end(), [op](const pending_operation& p) { return p.id == op; }) &&
           std::find(held.begin(), held.end(), op) == held.end();
  }
};

inline bool contains(const std::vector<operation_id>& v, operation_id op) { return std::find(v.begin(), v.end(), op) != v.end(); }
inline bool contains_name(const std::vector<std::uint64_t>& v, std::uint64_t name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

class dpor_strategy final : public strategy {
 public:
  explicit dpor_strategy(bool weak_memory) : weak_(weak_memory) {}
  void begin_iteration(std::uint64_t, std::uint64_t) override;
  std::size_t next_operation(const decision_context& ctx) override;
  std::uint64_t next_value(const decision_context& ctx, const choice& c) override;
  void end_iteration(const iteration_summary&) override;
  std::string describe() const override { return "dpor"; }
  std::uint64_t learning_window() const override { return 0; }
  bool exhausted() const override { return exhausted_; }
  std::string stop_reason() const override { return error_.empty() ? stop_ : error_; }
  std::string search_error() const override { return error_; }
  // Under rc11: distinct executions (dpor_executions.cpp), not schedules.
  std::uint64_t schedules_explored() const override { return schedules_; }
  bool counts_executions() const override { return weak_; }
  std::uint64_t bounded_choices() const override { return sites_.bounded_choices(); }
  std::uint64_t held_wait_iterations() const override { return held_iterations_; }

 private:
  static bool same_offer(const std::vector<pending_operation>& a, std::span<const pending_operation> b);
  std::uint64_t diverge(std::string why);
  // Records the step decision `d` takes and returns its index in ctx.enabled.
  std::size_t take(const decision& d, const decision_context& ctx);
  // At a scheduling decision: how the previous step ended, which blocked
  // operations were woken, which operations were created.
  void observe(const decision_context& ctx);
  // The footprint of a pending step. Under rc11 an atomic access's
  // dependence is known only once it ran (absorb_weak).
  footprint footprint_of(const pending_operation& p) const { return pending_footprint(p); }
  // rc11: a data choice of the memory model (which store a load reads, where
  // a store goes in mo), whose meaning the engine's weak_execution carries.
  bool weak_choice(const choice& c) const {
    return weak_ && !c.rare && (c.point == point_kind::read || c.point == point_kind::write);
  }
  // rc11: folds a data choice that is not the memory model's into the identity.
  void note_choice(const choice& c, std::uint64_t value);
  // rc11: the identity of the iteration that just ended, after analyze():
  // the memory model's rf and mo (`weak`), plus, for every other step, the
  // step before it that wrote its object, plus the other data choices.
  std::uint64_t execution_identity(std::uint64_t weak) const;
  object_id self_of(operation_id op) const { return op < self_of_.size() ? self_of_[op] : 0; }
  bool dependent(const footprint& a, const footprint& b) const;
  // rc11: how two atomic accesses of different operations relate, a before b
  // in the iteration: b happens after a (hb), and b coming first could make
  // an execution a-first does not (race). dpor_races.cpp says which.
  struct relation {
    bool hb = false;
    bool race = false;
  };
  relation related(const footprint& a, const footprint& b) const;
  // Sleep sets: whether `sleeping` stays asleep after step `b` ran, adding to
  // its fresh outcomes the ones b made possible.
  bool stays_asleep(footprint& sleeping, const footprint& b) const;
  // races() of a seq_cst write and a later read-modify-write that commute as a
  // pair but not with a seq_cst read after them (dpor_races.cpp).
  bool sc_floor_race(std::size_t i, std::size_t j) const;
  // Steps i < j of this iteration race: j run before i could make an
  // execution that i before j does not.
  bool races(std::size_t i, std::size_t j) const;
  // rc11: takes the last step's atomic access from the model's record; false
  // when that step took an outcome its sleep entry had explored (redundant).
  bool absorb_weak();
  // rc11: keeps the stores a load's choice offered on its step (footprint::cands).
  void note_candidates(const choice& c);
  bool weak_step(const footprint& f) const { return weak_ && f.wk != weak_access::what::none && !f.global; }
  // Source-DPOR's Sleep' for the decision after the last step: the operations
  // asleep or already explored at its decision that the step did not touch.
  std::vector<footprint> propagated_sleep() const;

  std::uint32_t* clock(std::size_t event) { return clocks_.data() + event * width_; }
  // Step i happens before (or is) the step whose clock is c.
  bool before(std::size_t i, const std::uint32_t* c) const { return c != nullptr && c[events_[i].f.op] >= events_[i].local; }
  const std::uint32_t* pre_clock(std::size_t j) {
    const step_event& e = events_[j];
    if (e.po_prev != no_step) return clock(e.po_prev);
    const std::size_t c = e.f.op < creator_.size() ? creator_[e.f.op] : no_step;
    return c != no_step && !events_[c].f.invisible ? clock(c) : nullptr;
  }

  // Wait loops: takes the steps since the last call into tries_, holding
  // back an operation whose try repeated the one before it. Under rc11,
  // false when a try repeated the one before it read for read and read a
  // store older than the newest it could (the iteration is then cut).
  bool note_tries();
  // rc11: steps [from, to) of op are atomic loads only, none with a data
  // choice of the program's, and (need_stale) one of them read a store
  // older than the newest it could read.
  bool stale_try(operation_id op, std::size_t from, std::size_t to, bool need_stale = true) const;
  // Steps [from, to) of op, each with the same footprint as the step of op
  // at the same place in [from2, to2), all reads.
  bool repeats(operation_id op, std::size_t from, std::size_t to, std::size_t from2, std::size_t to2) const;

  void analyze();
  void reverse(std::size_t i, std::size_t j);
  void backtrack();

  // Invariant: stack_[0..depth_) are the decisions taken so far in this
  // iteration, in order; the rest replay a prefix that this iteration must follow.
  std::vector<decision> stack_;
  std::size_t depth_ = 0;
  std::size_t changed_ = 0;  // the decision the last backtrack moved: steps before it were analyzed already
  std::vector<step_event> events_;  // this iteration's steps, in order
  std::size_t last_schedule_ = no_step;
  bool outcome_known_ = true;        // how events_.back() ended is recorded
  std::vector<std::size_t> blocked_;  // steps whose operation is blocked, not yet woken
  std::vector<std::pair<std::size_t, std::size_t>> retry_;  // by operation: (failed attempt, waker)
  std::vector<object_id> self_of_;      // by operation: its own object
  std::vector<std::size_t> creator_;    // by operation: the step that created it
  std::vector<std::uint32_t> clocks_;   // vector clocks, width_ per step
  std::size_t width_ = 0;
  std::uint64_t schedules_ = 0;
  spurious_sites sites_;
  // Under rc11 (weak_): an iteration is one execution of the test, counted
  // once however many schedules produce it. The dependence between atomic
  // accesses (dpor_races.cpp) keeps most executions from being run twice;
  // executions_ keeps the rest (a seq_cst fence and a seq_cst access run in
  // both orders) from being counted twice (docs/strategies.md, "dpor under rc11").
  bool weak_ = false;
  std::unordered_set<std::uint64_t> executions_;
  std::uint64_t repeated_ = 0;              // complete iterations that repeated an execution
  std::uint64_t cut_ = 0;                   // iterations stopped as redundant (sleep sets)
  const weak_access* weak_src_ = nullptr;   // the engine's record of the last atomic access
  std::uint64_t weak_seq_ = 0;              // its seq when last read
  // rc11: a schedule decision taken in this iteration whose operation must
  // place its next store as decision::carry says (no_step: none).
  std::size_t carried_ = no_step;
  std::uint64_t choices_ = 0;               // this iteration's other data choices, folded
  std::vector<std::uint32_t> choices_by_op_;  // by operation: its data choices so far
  // Wait loops, by operation: its last two hand-over steps (yield or sleep)
  // and whether it is held back (dpor.cpp, "Wait loops").
  struct wait_tries {
    std::size_t last = no_step;
    std::size_t before = no_step;
    bool held = false;
  };
  std::vector<wait_tries> tries_;
  std::size_t tries_seen_ = 0;          // events_ taken into tries_
  bool held_now_ = false;               // this iteration held an operation back
  std::uint64_t held_iterations_ = 0;   // iterations that did
  bool exhausted_ = false;
  std::string stop_;
  std::string error_;
};

}  // namespace heddle::detail::dpor_impl
