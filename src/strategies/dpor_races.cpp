// dpor's races: which steps are dependent, happens-before over an
// iteration's steps by vector clocks, and, for each pair of dependent steps
// of different operations not ordered by happens-before, the reversal that
// Source-DPOR adds to the earlier step's decision (dpor.cpp has the search).
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
//   read point after which its operation blocked on that same object, not
//   finished; told apart with decision_context::current_finished and
//   current_object) changes nothing: it is treated as no step at all, and the
//   operation as disabled until woken. Its retry carries the effect. A step
//   that blocked elsewhere (a load, then a join of an unfinished thread) took
//   effect.
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
#include "strategies/dpor.hpp"

namespace heddle::detail::dpor_impl {

bool dpor_strategy::dependent(const footprint& a, const footprint& b) const {
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

// Atomic accesses under rc11. A load chooses among the stores it may read
// and a store its place in mo (weak_memory.hpp), so the order two atomic
// accesses ran in matters less than in an interleaving:
// - a load that did not read a store commutes with it: with the store first,
//   the load may still read what it read. A load before a store races with
//   it all the same (with the store first the load may read it), but neither
//   happens before the other;
// - a load reads after the store it read (hb), and need not be reversed:
//   with the load first it could only read what it may read already;
// - two plain stores commute: whichever runs first, the second may be placed
//   before or after it in mo; so do a seq_cst store and a plain store in
//   either order (a seq_cst store goes after the seq_cst stores only, so it
//   may go before or after the plain store whichever ran first);
// - seq_cst accesses of one location are dependent as in an interleaving:
//   a seq_cst store and a later seq_cst load or store. In the iteration's
//   seq_cst prefix (weak_memory.hpp, "The prefix") a seq_cst load reads the
//   newest store and a seq_cst store goes last, so their order matters there.
//   After it, the model lets either go before the other in psc where no
//   cycle closes, so both orders may reach one execution: kept all the same
//   (treating them as plain accesses there missed executions in the sweep of
//   litmus_random's generator, `x=1 || r=x+=20 (acq_rel); r=x || x=3`, all
//   else seq_cst); dpor counts each execution once by its name. So are a
//   seq_cst fence and any seq_cst access (letting them commute after the
//   prefix missed 5 of the 17 executions of the push-button Chase-Lev deque,
//   wm_chase_lev_fixed);
// - two seq_cst fences commute: the model checks their order (psc_F) on the
//   graph instead of taking it from the run (weak_memory.hpp, sc_fence), so
//   either order leaves the same state, and a load after one of them may read
//   exactly what the graph allows whichever ran first;
// - a read-modify-write chooses the store it reads as a load does (any one
//   no other read-modify-write read) and goes right after it in mo. After a
//   store or read-modify-write it did not read, it commutes with it as a
//   load does: run first, it may still read what it read, and the other
//   goes after it in mo as it did. After the one it read, it happens after
//   it, and races with it if that one is a read-modify-write too (with the
//   later one first, the earlier one may read it). Before a store or
//   read-modify-write, it races with it as a load does (run second, it may
//   read it);
// - other fences touch only their operation's views: independent;
// - a seq_cst store or read-modify-write and a later read-modify-write, not
//   seq_cst, that did not read it commute as a pair, but race where a seq_cst
//   read of a third operation follows the first (sc_floor_race);
// - the step that ends the iteration's seq_cst prefix (the first access
//   weaker than seq_cst, or fence: footprint::ends_prefix) relates to the
//   seq_cst accesses as any step of its kind: whichever of those ran before
//   it read the newest store or went last, and run after it could take any
//   outcome psc allows, which includes that one. Those extra outcomes are
//   reached by waking a sleeping seq_cst access at that step (stays_asleep),
//   and otherwise by the races between the seq_cst accesses in the prefix.
dpor_strategy::relation dpor_strategy::related(const footprint& a, const footprint& b) const {
  using w = weak_access::what;
  if (a.wk == w::fence || b.wk == w::fence) {
    if (a.wk == w::fence && b.wk == w::fence) return {};
    const bool both = a.sc && b.sc;
    return {both, both};
  }
  if (a.object != b.object) return {};
  const bool both_sc = a.sc && b.sc;
  if (a.wk == w::load && b.wk == w::load) return {};
  if (a.wk == w::load) return {both_sc, true};
  if (b.wk == w::load) {
    if (both_sc) return {true, true};
    return {b.rf == a.wrote, false};
  }
  if (both_sc) return {true, true};
  if (b.wk == w::rmw) return {b.rf == a.wrote, a.wk == w::rmw};
  if (a.wk == w::rmw) return {false, true};
  return {};
}

// Sleep sets under rc11: a sleeping atomic access stays asleep after a step
// it commutes with; a store that gives it a new outcome (a store it may now
// read, or be placed right after) wakes that outcome only.
bool dpor_strategy::stays_asleep(footprint& sleeping, const footprint& b) const {
  if (sleeping.op == b.op) return false;
  if (!weak_step(sleeping) || !weak_step(b)) return !dependent(sleeping, b);
  using w = weak_access::what;
  auto add = [&sleeping](std::uint64_t name) {
    if (!contains_name(sleeping.fresh, name)) sleeping.fresh.push_back(name);
  };
  if (sleeping.wk == w::fence || b.wk == w::fence) {
    if (sleeping.wk == w::fence && b.wk == w::fence) return true;
    if (sleeping.wk == w::fence && sleeping.sc && b.sc) return false;
    // A seq_cst access is woken by the fence that ends the prefix (below).
    // After any other fence it stays asleep: the fence has no successor in
    // the graph yet, so it changes nothing the access may do, and the edges
    // between the two (the access mo- or rb-before a store that happens
    // before the fence) are the same in either order.
    if (b.ends_prefix && sleeping.sc && sleeping.wk != w::fence) return false;
    return true;
  }
  // The end of the seq_cst prefix wakes every seq_cst access: run after it,
  // one may read or go older than in the prefix (weak_memory.hpp, "The prefix").
  if (b.ends_prefix && sleeping.sc) return false;
  if (sleeping.object != b.object) return true;
  // A seq_cst load after a seq_cst store must read it or newer: a seq_cst
  // store stays asleep only where its load could still run after it.
  if (b.wk == w::load) return !(sleeping.sc && b.sc && sleeping.wk != w::load);
  switch (sleeping.wk) {
    case w::load:
      // A store it may read: placed after one it could read, or after a fresh one.
      if (contains_name(sleeping.cands, b.pred) || contains_name(sleeping.fresh, b.pred)) add(b.wrote);
      break;
    case w::store:
      // Right after a read-modify-write, or (a seq_cst store) right after a
      // seq_cst store: with this store first, those could only come after it;
      // and right after a store placed after a fresh one later. A seq_cst
      // store placed before newer stores would make every place after those
      // fresh too, which the names do not say: this store wakes wholly.
      if (b.sc && sleeping.sc && !b.newest) return false;
      // (Right after a read-modify-write that read a store it did not: with
      // this store first, that one could read the same store all the same.)
      if ((b.wk == w::rmw && b.sc) || (b.sc && sleeping.sc) || contains_name(sleeping.fresh, b.pred)) add(b.wrote);
      break;
    case w::rmw:
      // A seq_cst store or read-modify-write b not last in mo, before a
      // seq_cst read-modify-write: this one must now read b or a store
      // after b, and go after b in mo. Run first, it put b after itself
      // (b then read, or was placed, no older than its store), so every
      // execution now is new: it wakes wholly. (A read-modify-write b that
      // read an older store leaves newer stores after it for this one to
      // read, which the names below do not cover.)
      if (b.sc && sleeping.sc && !b.newest) return false;
      // As a load: a store it may now read (placed right after one it could
      // read, or after a fresh one); it then goes right after it in mo.
      if (b.newest || contains_name(sleeping.cands, b.pred) || contains_name(sleeping.fresh, b.pred)) add(b.wrote);
      break;
    default: break;
  }
  return true;
}

// A load i and a later store j placed right after a store the load could
// not read (older than its coherence floor, so not among its candidates)
// do not race: with j first, the load still could not read j. That store
// must have existed when the load ran; one made after it could be the
// reason j went there. The same holds of a read-modify-write i and a later
// store or read-modify-write j, except right after i's own store: with j
// first, i may read j there.
bool dpor_strategy::races(std::size_t i, std::size_t j) const {
  const footprint& a = events_[i].f;
  const footprint& b = events_[j].f;
  if (!weak_step(a) || !weak_step(b)) return dependent(a, b);
  using w = weak_access::what;
  if (!related(a, b).race) return sc_floor_race(i, j);
  if ((a.wk != w::load && a.wk != w::rmw) || (b.wk != w::store && b.wk != w::rmw) || (a.sc && b.sc) ||
      contains_name(a.cands, b.pred) || (a.wk == w::rmw && b.pred == a.wrote))
    return true;
  for (std::size_t k = i + 1; k < j; ++k)
    if (weak_step(events_[k].f) && events_[k].f.wrote == b.pred) return true;
  return false;
}

// A seq_cst store or read-modify-write i and a later read-modify-write j,
// not seq_cst, of its location that did not read it commute as a pair (j
// may read what it read either way), but not with a later seq_cst read of a
// third operation: the seq_cst order is the run's, so that read, run after
// i, goes after i in mo; only j, the read, then i, in that order, let it
// read j's store and still go before i. i and j then race.
// r1=x+=10 || x=3; F; r2=x+=40 || r3=x+=50 (relaxed), all else seq_cst,
// reaches r3 reading 0, r1 reading r3's store and x=3 last in mo only so
// (litmus_random.dpor_runs_an_rmw_before_a_seq_cst_store_for_a_seq_cst_rmw_to_read_it).
bool dpor_strategy::sc_floor_race(std::size_t i, std::size_t j) const {
  using w = weak_access::what;
  const footprint& a = events_[i].f;
  const footprint& b = events_[j].f;
  if (!a.sc || b.sc || a.object != b.object || a.op == b.op || (a.wk != w::store && a.wk != w::rmw) ||
      b.wk != w::rmw || b.rf == a.wrote)
    return false;
  for (std::size_t k = i + 1; k < events_.size(); ++k) {
    const footprint& f = events_[k].f;
    if (k != j && weak_step(f) && f.sc && f.object == a.object && (f.wk == w::load || f.wk == w::rmw) &&
        f.op != a.op && f.op != b.op)
      return true;
  }
  return false;
}

void dpor_strategy::analyze() {
  const std::size_t n = events_.size();
  width_ = creator_.size() + 1;
  clocks_.assign(n * width_, 0);
  std::vector<std::size_t> last_of(width_, no_step);
  std::vector<std::uint32_t> count(width_, 0);
  std::vector<std::vector<std::size_t>> touching;  // by object: visible steps on it, in order
  std::vector<std::size_t> globals, visible, finish_of(width_, no_step), sc_fences;
  auto join_into = [this](std::size_t j, const std::uint32_t* c) {
    if (c == nullptr) return;
    std::uint32_t* mine = clock(j);
    for (std::size_t k = 0; k < width_; ++k) mine[k] = std::max(mine[k], c[k]);
  };
  // An atomic store under rc11 does not order what came before it.
  auto writes = [this](std::size_t i, object_id o) {
    const footprint& f = events_[i].f;
    return !weak_step(f) && (f.blocked_on == o || mode_of(f.kind) == access::write);
  };
  auto hb_dep = [this](const footprint& a, const footprint& b) {
    return weak_step(a) && weak_step(b) ? related(a, b).hb : dependent(a, b);
  };
  // Earlier visible steps that may depend on step j, as far back as the
  // latest write to each of its objects: everything older on that object
  // happens before that write.
  auto candidates = [&](std::size_t j, auto&& visit) {
    const footprint& f = events_[j].f;
    // A seq_cst fence under rc11 relates to seq_cst accesses of every location.
    if (f.global || (weak_step(f) && f.wk == weak_access::what::fence && f.sc)) {
      for (std::size_t i : visible)
        if (i < j) visit(i);
      return;
    }
    for (std::size_t i : globals)
      if (i < j) visit(i);
    if (weak_step(f) && f.sc)
      for (std::size_t i : sc_fences)
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
      if (events_[i].f.op != e.f.op && hb_dep(events_[i].f, e.f)) join_into(j, clock(i));
    });
    clock(j)[e.f.op] = e.local;
    last_of[e.f.op] = j;
    visible.push_back(j);
    if (e.f.global) globals.push_back(j);
    if (weak_step(e.f) && e.f.wk == weak_access::what::fence && e.f.sc) sc_fences.push_back(j);
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
      if (i < j && events_[i].f.op != e.f.op && !before(i, pre) && races(i, j) &&
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
  using w = weak_access::what;
  const auto reads = [](const footprint& f) { return f.wk == w::load || f.wk == w::rmw; };
  const auto writes = [](const footprint& f) { return f.wk == w::store || f.wk == w::rmw; };
  for (std::size_t x = 0; x < u.size(); ++x) {
    // Not first after a step of u that happens before it, nor (rc11) after
    // one it races with without happening after it: an atomic access that
    // commuted with that step where it ran may not commute with it in the
    // reversed order, where it reads or goes elsewhere (u's start, run
    // first, would put it before that step, and may then be asleep).
    // Nor is j, a load or read-modify-write, first after a store of u to
    // its location: j commuted with it for what it read, but reversed
    // before i it reads something else, which may be that store (asleep
    // at i's decision, j first would only repeat what it read first).
    const footprint& fx = events_[u[x]].f;
    const bool last = x + 1 == u.size();
    const bool first = std::none_of(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(x), [&](std::size_t k) {
      const footprint& fk = events_[k].f;
      if (before(k, clock(u[x]))) return true;
      if (!weak_step(fk) || !weak_step(fx) || fk.op == fx.op) return false;
      return races(k, u[x]) || (last && reads(fx) && writes(fk) && fk.object == fx.object);
    });
    if (first && !contains(initials, events_[u[x]].f.op)) initials.push_back(events_[u[x]].f.op);
  }
  decision& d = stack_[events_[i].node];
  // What op's store must do when explored at d (decision::carry): when op's
  // steps in u are the store j (after op's start, at most), racing with the
  // load i that could read it, the place j had; otherwise any. The load does
  // not change where j may go, so every place j had after it is a race of
  // its own with that place, and a place j takes first that the load cannot
  // read only repeats the load-first runs. Kept to plain stores with no
  // seq_cst fence before them, whose places nothing the load does can change.
  const auto carry = [&](operation_id op) {
    if (!weak_) return;  // under sc every exploration takes every place: no carry kept
    const footprint& a = events_[i].f;
    const footprint& b = events_[j].f;
    bool only_start = true;
    for (std::size_t k : u)
      if (k != j && events_[k].f.op == op && events_[k].f.kind != point_kind::start) only_start = false;
    bool any = op != b.op || !only_start || !weak_step(a) || !weak_step(b) || a.wk != w::load ||
               b.wk != w::store || b.sc || !contains_name(a.cands, b.pred);
    for (std::size_t k = 0; !any && k < j; ++k)
      if (weak_step(events_[k].f) && events_[k].f.wk == w::fence && events_[k].f.sc) any = true;
    d.want(op, any, b.pred);
  };
  for (operation_id op : initials)
    if (d.asleep(op)) return;
  for (operation_id op : initials)
    if (contains(d.backtrack, op)) {
      carry(op);
      return;
    }
  const operation_id mine = events_[j].f.op;
  if (contains(initials, mine) && d.offers(mine)) {
    d.backtrack.push_back(mine);
    carry(mine);
    return;
  }
  for (operation_id op : initials)
    if (d.offers(op)) {
      d.backtrack.push_back(op);
      carry(op);
      return;
    }
  for (const pending_operation& p : d.enabled)
    if (!d.asleep(p.id) && !contains(d.backtrack, p.id) && !contains(d.held, p.id)) {
      d.backtrack.push_back(p.id);
      if (weak_) d.want(p.id, true, 0);
    }
}

}  // namespace heddle::detail::dpor_impl
