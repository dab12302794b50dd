// `dpor`: dynamic partial-order reduction with sleep sets, exhaustive, one
// complete schedule per equivalence class of schedules.
//
// Flanagan and Godefroid, "Dynamic Partial-Order Reduction for Model Checking
// Software", POPL 2005; what is implemented is the source-set algorithm with
// sleep sets of Abdulla, Aronis, Jonsson and Sagonas, "Optimal Dynamic Partial
// Order Reduction", POPL 2014 (Algorithm 1, Source-DPOR), run statelessly: each
// iteration replays a prefix of the search stack, and races are found after
// the iteration over the whole step sequence with vector clocks. Sleep sets
// make two explored complete schedules never equivalent; an iteration in which
// every enabled operation sleeps is stopped ("sleep-set blocked") and not
// counted in schedules_explored(). Data choices branch on every value, except
// that a rare (spurious) event is explored once per call site in each schedule
// (spurious_sites.hpp), so that retry loops and wait loops do not make the
// search endless.
//
// Steps and dependence. A step is what an operation does from its pending point
// to its next one. Two steps of different operations are dependent when:
// - both touch one object and at least one writes: read points only read;
//   acquire_shared and release_shared of one shared_mutex commute with each
//   other; every other kind (write, rmw, acquire, release, wait, signal, send,
//   receive, user) writes its object; join only reads;
// - one is a join on an operation's own object and the other finishes that
//   operation;
// - either is global: a timed operation chosen at its deadline or a sleep (the
//   virtual clock moves), or a step that blocked on an object not known yet.
// yield, fence and start touch nothing. A step that blocked also touches the
// object it then waited on (a condition-variable wait releases its mutex and
// blocks on the condition in one step), learned when the operation is woken.
// Happens-before is that dependence plus program order plus creation (an
// operation's start follows the step of its parent that created it).
//
// Departures, because the engine runs a blocking call as a step that blocks:
// - A failed attempt (a step from an acquire, acquire_shared, wait, join or
//   read point after which its operation blocked, not finished; told apart
//   with decision_context::current_finished) changes nothing: it is treated as no step at all,
//   and the operation as disabled until woken. Its retry carries the effect.
// - Races are reversible only where the later operation could have run: a
//   join never races with the joined operation; a retry never races with the
//   step that woke it (it races instead with that operation's earlier step on
//   the object, the acquire that preceded a release) nor with steps taken
//   while it was blocked. A release followed by an acquire on one object races
//   both ways (a counting semaphore may let the acquire pass first).
// - A blocking lock (pending_operation::lock) is not offered while another
//   operation holds its object: it never races with the holder's release,
//   only with the acquire before it.
// - When no initial of a reversal is enabled at the racing point, every awake
//   enabled operation is added there (Flanagan-Godefroid's fallback).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "strategies/spurious_sites.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

constexpr std::size_t no_step = std::numeric_limits<std::size_t>::max();

enum class access : std::uint8_t { none, read, shared, write };

access mode_of(point_kind k) {
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
bool conflict(access a, access b) {
  return a != access::none && b != access::none && !(a == access::read && b == access::read) &&
         !(a == access::shared && b == access::shared);
}
bool pure_attempt(point_kind k) {
  return k == point_kind::acquire || k == point_kind::acquire_shared || k == point_kind::wait ||
         k == point_kind::join || k == point_kind::read;
}
bool release_like(point_kind k) {
  return k == point_kind::release || k == point_kind::release_shared || k == point_kind::signal;
}
bool acquire_like(point_kind k) {
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
};

footprint pending_footprint(const pending_operation& p) {
  return {p.id, p.point, p.object, 0, p.timed || p.point == point_kind::sleep, false, false, p.lock};
}

struct step_event {
  footprint f;
  std::size_t node = 0;      // its decision in the stack
  std::size_t failed = no_step;  // a retry: the failed attempt before it
  std::size_t waker = no_step;   // a retry: the step after which its operation was woken
  std::size_t po_prev = no_step;  // the previous visible step of its operation
  std::uint32_t local = 0;     // 1-based index among its operation's visible steps
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
  bool asleep(operation_id op) const {
    return std::any_of(sleep.begin(), sleep.end(), [op](const footprint& f) { return f.op == op; });
  }
  bool offers(operation_id op) const {
    return std::any_of(enabled.begin(), enabled.end(), [op](const pending_operation& p) { return p.id == op; });
  }
};

bool contains(const std::vector<operation_id>& v, operation_id op) { return std::find(v.begin(), v.end(), op) != v.end(); }

class dpor_strategy final : public strategy {
 public:
  void begin_iteration(std::uint64_t, std::uint64_t) override {
    depth_ = 0;
    stop_.clear();
    events_.clear();
    blocked_.clear();
    retry_.clear();
    self_of_.assign(1, 0);
    creator_.assign(1, no_step);
    last_schedule_ = no_step;
    outcome_known_ = true;
    sites_.begin_iteration();
  }

  std::size_t next_operation(const decision_context& ctx) override {
    observe(ctx);
    if (depth_ < stack_.size()) {
      decision& d = stack_[depth_];
      if (d.data || !same_offer(d.enabled, ctx.enabled))
        return diverge(fmt::format("step {}: replaying the search prefix, the program offers {}", ctx.step,
                                   d.data ? "a scheduling decision where it made a data choice"
                                          : "other operations than when this prefix was first run"));
      return take(d, ctx);
    }
    decision d;
    d.enabled.assign(ctx.enabled.begin(), ctx.enabled.end());
    d.sleep = propagated_sleep();
    std::optional<operation_id> pick;
    for (const pending_operation& p : ctx.enabled)
      if (!d.asleep(p.id) && (!pick || p.id == ctx.current)) pick = p.id;
    if (!pick) {
      stop_ = fmt::format("sleep-set blocked at step {}: every enabled operation would repeat a schedule "
                          "already explored",
                          ctx.step);
      return stop;
    }
    d.backtrack.push_back(*pick);
    d.explored.push_back(*pick);
    stack_.push_back(std::move(d));
    return take(stack_.back(), ctx);
  }

  std::uint64_t next_value(const decision_context& ctx, const choice& c) override {
    const std::uint64_t bound = sites_.bound(c);
    if (depth_ < stack_.size()) {
      const decision& d = stack_[depth_];
      if (!d.data || d.offered != c.bound || d.bound != bound)
        return diverge(fmt::format("step {}: replaying the search prefix, the program makes a data choice below "
                                   "{} where it made {}",
                                   ctx.step, c.bound,
                                   d.data ? fmt::format("one below {}", d.offered) : "a scheduling decision"));
      ++depth_;
      sites_.taken(c, d.value, false);
      return d.value;
    }
    decision d;
    d.data = true;
    d.offered = c.bound;
    d.bound = bound;
    stack_.push_back(std::move(d));
    ++depth_;
    sites_.taken(c, 0, bound < c.bound);
    return 0;
  }

  void end_iteration(const iteration_summary&) override {
    if (!error_.empty()) {
      exhausted_ = true;
      return;
    }
    if (stop_.empty() && depth_ < stack_.size()) {
      error_ = fmt::format("the program ended after {} decisions, but replaying the search prefix needs {}",
                           depth_, stack_.size());
      exhausted_ = true;
      return;
    }
    // The last step's operation finished, or the iteration ended (bug,
    // deadlock, max steps): assume it finished, which only adds dependence.
    if (!outcome_known_ && !events_.empty()) events_.back().f.finishes = true;
    if (stop_.empty()) ++schedules_;
    analyze();
    backtrack();
  }

  std::string describe() const override { return "dpor"; }
  std::uint64_t learning_window() const override { return 0; }
  bool exhausted() const override { return exhausted_; }
  std::string stop_reason() const override { return error_.empty() ? stop_ : error_; }
  std::string search_error() const override { return error_; }
  std::uint64_t schedules_explored() const override { return schedules_; }
  std::uint64_t bounded_choices() const override { return sites_.bounded_choices(); }

 private:
  static bool same_offer(const std::vector<pending_operation>& a, std::span<const pending_operation> b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
             return x.id == y.id && x.point == y.point && x.object == y.object && x.timed == y.timed;
           });
  }

  std::uint64_t diverge(std::string why) {
    error_ = "the program is not deterministic under control: " + why +
             ". Likely cause: it depends on something heddle does not control (real time, addresses, unseeded "
             "randomness, or state left over from an earlier iteration)";
    return stop;
  }

  // Records the step decision `d` takes and returns its index in ctx.enabled.
  std::size_t take(const decision& d, const decision_context& ctx) {
    std::size_t index = 0;
    while (ctx.enabled[index].id != d.explored.back()) ++index;
    step_event e;
    e.f = pending_footprint(ctx.enabled[index]);
    e.node = depth_;
    if (e.f.op < retry_.size() && retry_[e.f.op].first != no_step) {
      std::tie(e.failed, e.waker) = retry_[e.f.op];
      retry_[e.f.op] = {no_step, no_step};
    }
    events_.push_back(e);
    last_schedule_ = depth_++;
    outcome_known_ = false;
    return index;
  }

  // At a scheduling decision: how the previous step ended, which blocked
  // operations were woken, which operations were created.
  void observe(const decision_context& ctx) {
    auto offered = [&ctx](operation_id op) -> const pending_operation* {
      for (const pending_operation& p : ctx.enabled)
        if (p.id == op) return &p;
      return nullptr;
    };
    if (!outcome_known_) {
      footprint& f = events_.back().f;
      if (offered(f.op) == nullptr) {
        // f.op took the last step, so it is the operation now at a decision.
        if (ctx.current == f.op && ctx.current_finished) {
          f.finishes = true;
        } else {
          // A pure attempt blocks on its own object; anything else blocked on
          // an object learned only when it is woken.
          (pure_attempt(f.kind) ? f.invisible : f.global) = true;
          blocked_.push_back(events_.size() - 1);
        }
      }
      outcome_known_ = true;
    }
    for (std::size_t i = 0; i < blocked_.size();) {
      step_event& e = events_[blocked_[i]];
      const pending_operation* p = offered(e.f.op);
      if (p == nullptr) {
        ++i;
        continue;
      }
      if (!e.f.invisible || p->object != e.f.object) {
        e.f.invisible = false;
        e.f.global = false;
        e.f.blocked_on = p->object;
      }
      if (retry_.size() <= e.f.op) retry_.resize(e.f.op + 1, {no_step, no_step});
      retry_[e.f.op] = {blocked_[i], events_.size() - 1};
      blocked_.erase(blocked_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    while (creator_.size() <= ctx.operation_count) creator_.push_back(events_.empty() ? no_step : events_.size() - 1);
    for (const pending_operation& p : ctx.enabled)
      if (p.point == point_kind::start) {
        if (self_of_.size() <= p.id) self_of_.resize(p.id + 1, 0);
        self_of_[p.id] = p.object;
      }
  }

  object_id self_of(operation_id op) const { return op < self_of_.size() ? self_of_[op] : 0; }

  bool dependent(const footprint& a, const footprint& b) const {
    if (a.op == b.op) return true;
    if (a.invisible || b.invisible) return false;
    if (a.global || b.global) return true;
    if (a.kind == point_kind::join && b.finishes && a.object == self_of(b.op)) return true;
    if (b.kind == point_kind::join && a.finishes && b.object == self_of(a.op)) return true;
    const object_id ao[] = {a.object, a.blocked_on};
    const access am[] = {mode_of(a.kind), access::write};
    const object_id bo[] = {b.object, b.blocked_on};
    const access bm[] = {mode_of(b.kind), access::write};
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k)
        if (ao[i] != 0 && ao[i] == bo[k] && conflict(am[i], bm[k])) return true;
    return false;
  }

  // Source-DPOR's Sleep' for the decision after the last step: the operations
  // asleep or already explored at its decision that the step did not touch.
  std::vector<footprint> propagated_sleep() const {
    std::vector<footprint> out;
    if (last_schedule_ == no_step) return out;
    const decision& d = stack_[last_schedule_];
    const footprint& step = events_.back().f;
    for (const footprint& f : d.sleep)
      if (!dependent(f, step)) out.push_back(f);
    for (std::size_t i = 0; i + 1 < d.explored.size(); ++i)
      for (const pending_operation& p : d.enabled)
        if (p.id == d.explored[i] && !dependent(pending_footprint(p), step)) out.push_back(pending_footprint(p));
    return out;
  }

  std::uint32_t* clock(std::size_t event) { return clocks_.data() + event * width_; }
  // Step i happens before (or is) the step whose clock is c.
  bool before(std::size_t i, const std::uint32_t* c) const { return c != nullptr && c[events_[i].f.op] >= events_[i].local; }
  const std::uint32_t* pre_clock(std::size_t j) {
    const step_event& e = events_[j];
    if (e.po_prev != no_step) return clock(e.po_prev);
    const std::size_t c = e.f.op < creator_.size() ? creator_[e.f.op] : no_step;
    return c != no_step && !events_[c].f.invisible ? clock(c) : nullptr;
  }

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
  bool exhausted_ = false;
  std::string stop_;
  std::string error_;
};

void dpor_strategy::analyze() {
  const std::size_t n = events_.size();
  width_ = creator_.size() + 1;
  clocks_.assign(n * width_, 0);
  std::vector<std::size_t> last_of(width_, no_step);
  std::vector<std::uint32_t> count(width_, 0);
  std::vector<std::vector<std::size_t>> touching;  // by object: visible steps on it, in order
  std::vector<std::size_t> globals, visible, finish_of(width_, no_step);
  auto join_into = [this](std::size_t j, const std::uint32_t* c) {
    if (c == nullptr) return;
    std::uint32_t* mine = clock(j);
    for (std::size_t k = 0; k < width_; ++k) mine[k] = std::max(mine[k], c[k]);
  };
  auto writes = [this](std::size_t i, object_id o) {
    const footprint& f = events_[i].f;
    return f.blocked_on == o || mode_of(f.kind) == access::write;
  };
  // Earlier visible steps that may depend on step j, as far back as the
  // latest write to each of its objects: everything older on that object
  // happens before that write.
  auto candidates = [&](std::size_t j, auto&& visit) {
    const footprint& f = events_[j].f;
    if (f.global) {
      for (std::size_t i : visible)
        if (i < j) visit(i);
      return;
    }
    for (std::size_t i : globals)
      if (i < j) visit(i);
    for (object_id o : {f.object, f.blocked_on}) {
      if (o == 0 || o >= touching.size()) continue;
      const auto& list = touching[o];
      for (auto it = std::lower_bound(list.begin(), list.end(), j); it != list.begin();) {
        const std::size_t i = *--it;
        visit(i);
        if (writes(i, o)) break;
      }
    }
    if (f.kind == point_kind::join)
      for (operation_id op = 1; op < width_; ++op)
        if (finish_of[op] < j && self_of(op) == f.object) visit(finish_of[op]);
  };

  for (std::size_t j = 0; j < n; ++j) {
    step_event& e = events_[j];
    if (e.f.invisible) continue;
    e.po_prev = last_of[e.f.op];
    e.local = ++count[e.f.op];
    join_into(j, pre_clock(j));
    candidates(j, [&](std::size_t i) {
      if (events_[i].f.op != e.f.op && dependent(events_[i].f, e.f)) join_into(j, clock(i));
    });
    clock(j)[e.f.op] = e.local;
    last_of[e.f.op] = j;
    visible.push_back(j);
    if (e.f.global) globals.push_back(j);
    if (e.f.finishes) finish_of[e.f.op] = j;
    for (object_id o : {e.f.object, e.f.blocked_on})
      if (o != 0) {
        if (touching.size() <= o) touching.resize(o + 1);
        if (touching[o].empty() || touching[o].back() != j) touching[o].push_back(j);
      }
  }

  // Races of steps new in this iteration.
  std::size_t from = 0;
  while (from < n && events_[from].node < changed_) ++from;
  if (from > 0 && changed_ < stack_.size() && stack_[changed_].data) --from;
  std::vector<std::size_t> cands;
  for (std::size_t j = from; j < n; ++j) {
    const step_event& e = events_[j];
    if (e.f.invisible) continue;
    const std::uint32_t* pre = pre_clock(j);
    cands.clear();
    candidates(j, [&](std::size_t i) {
      if (i < j && events_[i].f.op != e.f.op && !before(i, pre) && dependent(events_[i].f, e.f) &&
          std::find(cands.begin(), cands.end(), i) == cands.end())
        cands.push_back(i);
    });
    for (std::size_t i : cands) {
      const bool immediate = std::none_of(cands.begin(), cands.end(), [&](std::size_t k) { return k != i && before(i, clock(k)); });
      if (!immediate) continue;
      const step_event& a = events_[i];
      if (e.f.kind == point_kind::join && e.f.object == self_of(a.f.op)) continue;
      const bool woken_by = e.failed != no_step && i == e.waker;
      const bool while_blocked = e.failed != no_step && i > e.failed && i < e.waker;
      const bool release_acquire = release_like(a.f.kind) && acquire_like(e.f.kind) && a.f.object == e.f.object;
      // A blocking lock is not offered while another operation holds its
      // object, so it cannot come before that operation's release.
      const bool impossible = release_acquire && e.f.lock;
      if (!while_blocked || woken_by) {
        if (!woken_by && !impossible) reverse(i, j);
        if (woken_by || release_acquire) {
          // The acquire-like step of the same operation before the release.
          for (std::size_t k = a.po_prev; k != no_step; k = events_[k].po_prev) {
            if (!dependent(events_[k].f, e.f)) continue;
            if (!before(k, pre) && (e.failed == no_step || k < e.failed)) reverse(k, j);
            break;
          }
        }
      }
    }
  }
}

// Source-DPOR: step j of another operation could have come before step i;
// make sure some operation that starts such a schedule is explored at i's decision.
void dpor_strategy::reverse(std::size_t i, std::size_t j) {
  std::vector<std::size_t> u;
  for (std::size_t k = i + 1; k < j; ++k)
    if (!events_[k].f.invisible && !before(i, clock(k))) u.push_back(k);
  u.push_back(j);
  std::vector<operation_id> initials;
  for (std::size_t x = 0; x < u.size(); ++x) {
    const bool first = std::none_of(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(x),
                                    [&](std::size_t k) { return before(k, clock(u[x])); });
    if (first && !contains(initials, events_[u[x]].f.op)) initials.push_back(events_[u[x]].f.op);
  }
  decision& d = stack_[events_[i].node];
  for (operation_id op : initials)
    if (contains(d.backtrack, op) || d.asleep(op)) return;
  const operation_id mine = events_[j].f.op;
  if (contains(initials, mine) && d.offers(mine)) {
    d.backtrack.push_back(mine);
    return;
  }
  for (operation_id op : initials)
    if (d.offers(op)) {
      d.backtrack.push_back(op);
      return;
    }
  for (const pending_operation& p : d.enabled)
    if (!d.asleep(p.id) && !contains(d.backtrack, p.id)) d.backtrack.push_back(p.id);
}

void dpor_strategy::backtrack() {
  while (!stack_.empty()) {
    decision& d = stack_.back();
    if (d.data) {
      if (d.value + 1 < d.bound) {
        ++d.value;
        changed_ = stack_.size() - 1;
        return;
      }
    } else {
      std::sort(d.backtrack.begin(), d.backtrack.end());
      for (operation_id op : d.backtrack)
        if (!contains(d.explored, op) && !d.asleep(op)) {
          d.explored.push_back(op);
          changed_ = stack_.size() - 1;
          return;
        }
    }
    stack_.pop_back();
  }
  exhausted_ = true;
}

}  // namespace

std::unique_ptr<strategy> make_dpor_strategy() { return std::make_unique<dpor_strategy>(); }

}  // namespace heddle::detail
