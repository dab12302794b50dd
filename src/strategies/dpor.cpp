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
#include "strategies/waiting.hpp"

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
  carried_ = no_step;
  tries_.clear();
  tries_seen_ = 0;
  held_now_ = false;
}

std::size_t dpor_strategy::next_operation(const decision_context& ctx) {
  // The first decision comes before any step: its record is the baseline.
  // (A fork server's child starts each iteration from the server's count,
  // and from none when the model is made during the iteration.)
  if (events_.empty() && weak_) {
    weak_src_ = ctx.weak;
    weak_seq_ = weak_src_ != nullptr ? weak_src_->seq : 0;
  }
  if (weak_ && ctx.weak != nullptr) weak_src_ = ctx.weak;
  if (!absorb_weak()) return stop;
  observe(ctx);
  if (!note_tries()) return stop;
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
  for (const pending_operation& p : ctx.enabled)
    if (p.id < tries_.size() && tries_[p.id].held && !d.asleep(p.id)) d.held.push_back(p.id);
  // The running operation if it is awake, else the first awake. One about to
  // yield hands over: another awake one goes first, so that a wait loop lets
  // the operation it waits for run instead of spinning to --max-steps in the
  // first schedule with no race to reverse. One partly asleep (rc11) only when
  // no other is awake, as it may have nothing new to do; one that waits (at a
  // sleep, or blocked with a deadline whose timeout would fire) only when
  // nothing else can run.
  const auto choose = [&]() -> std::optional<operation_id> {
    std::optional<operation_id> pick;
    bool pick_hands_over = false;
    for (const pending_operation& p : ctx.enabled)
      if (!waits(p) && !d.asleep(p.id) && !contains(d.held, p.id) && d.partly_asleep(p.id) == nullptr &&
          (!pick || pick_hands_over || (p.id == ctx.current && !yields_turn(p, ctx.current)))) {
        pick = p.id;
        pick_hands_over = yields_turn(p, ctx.current);
      }
    for (const pending_operation& p : ctx.enabled)
      if (!pick && !waits(p) && !d.asleep(p.id) && !contains(d.held, p.id)) pick = p.id;
    for (const pending_operation& p : ctx.enabled)
      if (!pick && !d.asleep(p.id) && !contains(d.held, p.id)) pick = p.id;
    return pick;
  };
  std::optional<operation_id> pick = choose();
  if (!pick && !d.held.empty()) {
    held_now_ = true;
    if (d.held.size() < d.enabled.size()) {
      // The others are asleep: whatever they do next was explored from an
      // earlier decision, and the held operation would only try again.
      stop_ = fmt::format("sleep-set blocked at step {}: operation {} would repeat its last try of a wait loop, "
                          "and every other enabled operation would repeat a schedule already explored",
                          ctx.step, d.held.front());
      return stop;
    }
    d.held.clear();  // nothing else can run: they try again
    pick = choose();
  }
  if (!d.held.empty()) held_now_ = true;
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
  if (weak_ && ctx.weak != nullptr) weak_src_ = ctx.weak;
  const std::uint64_t bound = sites_.bound(c);
  if (depth_ < stack_.size()) {
    const decision& d = stack_[depth_];
    if (!d.data || d.offered != c.bound || d.bound != bound)
      return diverge(fmt::format("step {}: replaying the search prefix, the program makes a data choice below "
                                 "{} where it made {}",
                                 ctx.step, c.bound,
                                 d.data ? fmt::format("one below {}", d.offered) : "a scheduling decision"));
    ++depth_;
    if (carried_ != no_step && !events_.empty() && stack_[carried_].explored.back() == events_.back().f.op)
      carried_ = no_step;
    sites_.taken(c, d.value, false);
    note_choice(c, d.value);
    if (!weak_choice(c) && !events_.empty()) events_.back().chose = true;
    note_candidates(c);
    return d.value;
  }
  decision d;
  d.data = true;
  d.offered = c.bound;
  d.bound = bound;
  // A load or store whose operation is partly asleep explores only the
  // outcomes that name a fresh store: the others were explored from the
  // decision where it was put to sleep.
  if (weak_choice(c) && c.names != nullptr && last_schedule_ != no_step && !events_.empty())
    if (const footprint* s = stack_[last_schedule_].partly_asleep(events_.back().f.op)) {
      for (std::uint64_t k = 0; k < bound; ++k)
        if (contains_name(s->fresh, c.names[k])) d.allowed.push_back(k);
      if (d.allowed.empty()) {
        stop_ = fmt::format("step {}: every outcome of this atomic access was explored already", ctx.step);
        return stop;
      }
      d.value = d.allowed.front();
    }
  // A store whose operation a reversal put here to take given places
  // (decision::carry): only those.
  if (carried_ != no_step && !events_.empty() && stack_[carried_].explored.back() == events_.back().f.op) {
    const decision& n = stack_[carried_];
    carried_ = no_step;
    if (weak_choice(c) && c.point == point_kind::write && c.names != nullptr) {
      std::vector<std::uint64_t> keep;
      for (std::uint64_t k = 0; k < bound; ++k)
        if (n.place_allowed(c.names[k]) && (d.allowed.empty() ? true : contains_name(d.allowed, k))) keep.push_back(k);
      if (keep.empty()) {
        stop_ = fmt::format("step {}: every place of this store was explored already", ctx.step);
        return stop;
      }
      d.allowed = std::move(keep);
      d.at = 0;
      d.value = d.allowed.front();
    }
  }
  const std::uint64_t value = d.value;
  note_candidates(c);
  stack_.push_back(std::move(d));
  ++depth_;
  sites_.taken(c, value, bound < c.bound);
  note_choice(c, value);
  if (!weak_choice(c) && !events_.empty()) events_.back().chose = true;
  return value;
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
  const bool redundant = !absorb_weak();
  if (held_now_) ++held_iterations_;
  analyze();
  if (stop_.empty() && !redundant) {
    if (!weak_ || executions_.insert(execution_identity(summary.weak_execution)).second) ++schedules_;
    else ++repeated_;
  } else {
    ++cut_;
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
  // Its operation's next store takes the places this exploration carries.
  if (weak_ && (!d.cur_any || !d.cur_skip.empty())) carried_ = depth_;
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
        if (failed) f.invisible = true;
        // Under rc11, where it blocked is known: what it is once woken
        // (blocked_on), so that an atomic access asleep is not woken by it.
        else if (weak_ && ctx.current_point_known && ctx.current_object != 0) f.blocked_on = ctx.current_object;
        else f.global = true;
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
  for (footprint f : d.sleep)
    if (stays_asleep(f, step)) out.push_back(std::move(f));
  for (std::size_t i = 0; i + 1 < d.explored.size(); ++i)
    for (const pending_operation& p : d.enabled)
      if (p.id == d.explored[i]) {
        footprint f = footprint_of(p);
        if (weak_ && i < d.explored_fp.size()) {
          // What its step did when it was explored here: every outcome it had
          // here is explored, so none is fresh.
          const footprint& seen = d.explored_fp[i];
          f.wk = seen.wk;
          f.sc = seen.sc;
          f.rf = seen.rf;
          f.wrote = seen.wrote;
          f.pred = seen.pred;
          f.newest = seen.newest;
          f.cands = seen.cands;
          f.global = f.global || seen.global;
        }
        if (stays_asleep(f, step)) out.push_back(std::move(f));
      }
  return out;
}

void dpor_strategy::note_candidates(const choice& c) {
  if (weak_choice(c) && c.point == point_kind::read && c.names != nullptr && !events_.empty())
    events_.back().f.cands.assign(c.names, c.names + c.bound);
}

bool dpor_strategy::absorb_weak() {
  if (weak_src_ == nullptr || weak_src_->seq == weak_seq_) return true;
  const std::uint64_t made = weak_src_->seq - weak_seq_;
  weak_seq_ = weak_src_->seq;
  if (events_.empty()) return true;
  step_event& e = events_.back();
  footprint& f = e.f;
  const weak_access& w = *weak_src_;
  f.wk = w.kind;
  f.sc = w.sc;
  f.rf = w.read;
  f.wrote = w.written;
  f.pred = w.pred;
  f.newest = w.newest;
  if (w.kind != weak_access::what::fence) f.object = w.object;
  if (w.kind == weak_access::what::fence || !w.sc) {
    f.ends_prefix = true;
    for (std::size_t k = events_.size() - 1; k-- > 0 && f.ends_prefix;) {
      const footprint& g = events_[k].f;
      if (!g.invisible && !g.global && g.wk != weak_access::what::none && (g.wk == weak_access::what::fence || !g.sc))
        f.ends_prefix = false;
    }
  }
  if ((w.kind == weak_access::what::load || w.kind == weak_access::what::rmw) && f.cands.empty())
    f.cands.push_back(w.read);  // its only candidate
  if (made > 1) f.global = true;  // more than one access in a step: dependent with everything
  decision& d = stack_[e.node];
  if (carried_ != no_step && stack_[carried_].explored.back() == f.op) carried_ = no_step;
  if (d.explored_fp.size() < d.explored.size()) d.explored_fp.resize(d.explored.size());
  d.explored_fp.back() = f;
  // A step whose operation was partly asleep must have taken a fresh outcome.
  if (const footprint* s = d.partly_asleep(f.op); s != nullptr && !f.global) {
    const std::uint64_t name = f.wk == weak_access::what::store ? f.pred : f.rf;
    if (!contains_name(s->fresh, name)) {
      if (stop_.empty()) stop_ = "an atomic access took an outcome explored already";
      return false;
    }
  }
  return true;
}

// Wait loops. A try is what an operation does between two of its hand-over
// steps (yield or sleep). When a try only read, and read the same objects in
// the same order (and, under rc11, the same stores) as the try before it,
// with no step of another operation dependent with it since that earlier try
// began, it saw nothing change: the operation is held back (not chosen, not
// the start of a reversal) until another operation takes a step dependent
// with that try, or nothing else can run. Without this, each reversal of a
// waiting read with the write it waits for adds one more failed try before
// the write, and the search never ends. The assumption (GenMC's for await
// loops) is that such a try has no effect but its reads: a loop that counts
// its tries and gives up can give up only once nothing else can run
// (statistics::held_wait_iterations, docs/strategies.md).
//
// Under rc11 a load may read a store older than the newest, so a wait loop
// may read a stale store on every turn, whatever the others do, and each
// turn is a branch (Kokologiannakis, Ren and Vafeiadis, "Dynamic Partial
// Order Reductions for Spinloops", FMCAD 2021). A try of atomic loads only
// that read, load for load, the stores the try before it read leaves every
// view and every history as that try left them: the execution without it
// is the same up to that repeat, and is explored (a choice of a newer store
// is a sibling of this one). So when such a try read a store older than the
// newest it could, the iteration is cut as redundant, whatever ran in
// between (the repeat is in the execution, not in the schedule). A repeat of
// newest stores only is held back as above instead: with nothing else able
// to run, it is the loop's hang, which the search must reach (it then spins
// to --max-steps, a livelock). docs/memory-model.md, "Wait loops under rc11",
// has the argument and what it assumes.
bool dpor_strategy::note_tries() {
  const auto hand_over = [](const footprint& f) {
    return !f.invisible && (f.kind == point_kind::yield || f.kind == point_kind::sleep);
  };
  for (; tries_seen_ < events_.size(); ++tries_seen_) {
    const std::size_t k = tries_seen_;
    const footprint& f = events_[k].f;
    if (f.invisible) continue;
    if (tries_.size() <= f.op) tries_.resize(f.op + 1);
    // Another operation's step that the held try depends on releases it.
    for (std::size_t h = 0; h < tries_.size(); ++h) {
      wait_tries& t = tries_[h];
      if (!t.held || h == f.op) continue;
      for (std::size_t i = t.before + 1; i < t.last; ++i)
        if (events_[i].f.op == h && dependent(events_[i].f, f)) {
          t.held = false;
          break;
        }
    }
    wait_tries& t = tries_[f.op];
    // Under rc11 an operation's start begins its first try, so that a wait
    // loop at the start of an operation has its first turn compared too.
    if (weak_ && f.kind == point_kind::start && t.last == no_step) {
      t.last = k;
      continue;
    }
    if (!hand_over(f)) {
      t.held = false;
      continue;
    }
    bool repeat = false;
    if (t.last != no_step && t.before != no_step && repeats(f.op, t.last + 1, k, t.before + 1, t.last)) {
      if (weak_ && stale_try(f.op, t.last + 1, k) && stale_try(f.op, t.before + 1, t.last, false)) {
        held_now_ = true;
        stop_ = fmt::format("operation {} repeated its last try of a wait loop, reading the same stores, one of "
                            "them older than the newest it could read (redundant)",
                            f.op);
        ++tries_seen_;
        return false;
      }
      repeat = true;
      for (std::size_t i = t.before + 1; repeat && i < k; ++i) {
        const footprint& g = events_[i].f;
        if (g.op == f.op || g.invisible) continue;
        for (std::size_t x = t.last + 1; x < k; ++x)
          if (events_[x].f.op == f.op && dependent(events_[x].f, g)) {
            repeat = false;
            break;
          }
      }
    }
    t.before = t.last;
    t.last = k;
    t.held = repeat;
  }
  return true;
}

bool dpor_strategy::stale_try(operation_id op, std::size_t from, std::size_t to, bool need_stale) const {
  bool stale = false;
  for (std::size_t i = from; i < to; ++i) {
    const step_event& e = events_[i];
    const footprint& x = e.f;
    if (x.op != op || x.invisible) continue;
    if (x.kind != point_kind::read || x.wk != weak_access::what::load || x.global || x.finishes ||
        x.blocked_on != 0 || e.chose || x.cands.empty())
      return false;
    if (x.rf != x.cands.front()) stale = true;
  }
  return stale || !need_stale;
}

bool dpor_strategy::repeats(operation_id op, std::size_t from, std::size_t to, std::size_t from2,
                            std::size_t to2) const {
  using w = weak_access::what;
  const auto next = [&](std::size_t i, std::size_t end) {
    while (i < end && (events_[i].f.op != op || events_[i].f.invisible)) ++i;
    return i;
  };
  std::size_t a = next(from, to), b = next(from2, to2);
  if (a == to) return false;  // an empty try: nothing read
  for (; a < to && b < to2; a = next(a + 1, to), b = next(b + 1, to2)) {
    const footprint& x = events_[a].f;
    const footprint& y = events_[b].f;
    const bool reads = !x.global && !x.finishes && x.blocked_on == 0 &&
                       (mode_of(x.kind) == access::read || mode_of(x.kind) == access::none) &&
                       (x.wk == w::none || x.wk == w::load);
    if (!reads || x.kind != y.kind || x.object != y.object || x.global != y.global || x.blocked_on != y.blocked_on ||
        x.finishes != y.finishes || x.wk != y.wk || x.rf != y.rf || x.sc != y.sc)
      return false;
  }
  return a == to && b == to2;
}

void dpor_strategy::backtrack() {
  while (!stack_.empty()) {
    decision& d = stack_.back();
    if (d.data && !d.allowed.empty()) {
      if (d.at + 1 < d.allowed.size()) {
        d.value = d.allowed[++d.at];
        changed_ = stack_.size() - 1;
        return;
      }
    } else if (d.data) {
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
          d.begin(op);
          changed_ = stack_.size() - 1;
          return;
        }
      if (d.reopen()) {
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
