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
// This file runs the search: the stack of decisions, replaying its prefix,
// sleep sets, and backtracking. dpor_races.cpp holds the dependence relation
// and the race analysis after each iteration; dpor.hpp the shared state.
#include <fmt/format.h>

#include "strategies/dpor.hpp"

namespace heddle::detail {
namespace dpor_impl {

void dpor_strategy::begin_iteration(std::uint64_t, std::uint64_t) {
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
  choices_ = 0;
  choices_by_op_.clear();
}

std::size_t dpor_strategy::next_operation(const decision_context& ctx) {
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

std::uint64_t dpor_strategy::next_value(const decision_context& ctx, const choice& c) {
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
    note_choice(c, d.value);
    return d.value;
  }
  decision d;
  d.data = true;
  d.offered = c.bound;
  d.bound = bound;
  stack_.push_back(std::move(d));
  ++depth_;
  sites_.taken(c, 0, bound < c.bound);
  note_choice(c, 0);
  return 0;
}

void dpor_strategy::end_iteration(const iteration_summary& summary) {
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
  analyze();
  if (stop_.empty()) {
    if (!weak_ || executions_.insert(execution_identity(summary.weak_execution)).second) ++schedules_;
    else ++repeated_;
  }
  backtrack();
}

bool dpor_strategy::same_offer(const std::vector<pending_operation>& a, std::span<const pending_operation> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
           return x.id == y.id && x.point == y.point && x.object == y.object && x.timed == y.timed;
         });
}

std::uint64_t dpor_strategy::diverge(std::string why) {
  error_ = "the program is not deterministic under control: " + why +
           ". Likely cause: it depends on something heddle does not control (real time, addresses, unseeded "
           "randomness, or state left over from an earlier iteration)";
  return stop;
}

std::size_t dpor_strategy::take(const decision& d, const decision_context& ctx) {
  std::size_t index = 0;
  while (ctx.enabled[index].id != d.explored.back()) ++index;
  step_event e;
  e.f = footprint_of(ctx.enabled[index]);
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

void dpor_strategy::observe(const decision_context& ctx) {
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
        // A pure attempt that blocked on its own object failed: no step at
        // all. A step that went on and blocked at a later wait (a load, then
        // a join of an unfinished thread, which blocks without a point of
        // its own) took effect, and so did any other step that blocked:
        // global until it is woken and its object is known. Taking such a
        // load for a failed attempt kept operations asleep across it and
        // lost schedules (IRIW under seq_cst lost (0, 0, 1, 0)).
        const bool failed = pure_attempt(f.kind) && (!ctx.current_point_known || ctx.current_object == f.object);
        (failed ? f.invisible : f.global) = true;
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

std::vector<footprint> dpor_strategy::propagated_sleep() const {
  std::vector<footprint> out;
  if (last_schedule_ == no_step) return out;
  const decision& d = stack_[last_schedule_];
  const footprint& step = events_.back().f;
  for (const footprint& f : d.sleep)
    if (!dependent(f, step)) out.push_back(f);
  for (std::size_t i = 0; i + 1 < d.explored.size(); ++i)
    for (const pending_operation& p : d.enabled)
      if (p.id == d.explored[i] && !dependent(footprint_of(p), step)) out.push_back(footprint_of(p));
  return out;
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

}  // namespace dpor_impl

std::unique_ptr<strategy> make_dpor_strategy(bool weak_memory) {
  return std::make_unique<dpor_impl::dpor_strategy>(weak_memory);
}

}  // namespace heddle::detail
