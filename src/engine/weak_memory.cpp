// The rc11 memory model: store histories, views and their choices (weak_memory.hpp).
#include "engine/weak_memory.hpp"

#include <algorithm>
#include <cstring>

#include "engine/engine.hpp"

namespace heddle::detail {

namespace {
bool is_acquire(std::memory_order o) {
  return o == std::memory_order_consume || o == std::memory_order_acquire || o == std::memory_order_acq_rel ||
         o == std::memory_order_seq_cst;  // consume is treated as acquire, as compilers do
}
bool is_release(std::memory_order o) {
  return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
weak_memory& state() { return engine::current()->weak_memory_state(); }
// splitmix64's finalizer: execution() sums these, so each term must be well mixed.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

void weak_memory::clear() {
  for (location& l : locations_) {
    for (store_record& r : l.stores) {
      r.message.clear();
      spare_views_.push_back(std::move(r.message));
    }
    l.live = false;
    l.stores.clear();
    l.order.clear();
    l.position.clear();
  }
  for (op_state& o : ops_) {
    o.current.clear();
    o.pending_acquire.clear();
    o.release_fence.clear();
    o.has_release_fence = false;
    for (view& v : o.release_store) v.clear();
    o.accesses = 0;
    o.run_loc = no_location;
    o.run_gained = false;
  }
  for (view& v : released_) v.clear();
  prefix_ = true;
  logged_ = 0;
  if (graph_) [[unlikely]] {
    nodes_.clear();
    for (auto& n : nodes_of_) n.clear();
    fenced_loads_.clear();
    fenced_stores_.clear();
    graph_ = false;
  }
  reads_from_ = 0;
  rmw_read_ = {};
  approximated_ = false;
  hb_split_ = false;
  atomics_used_ = false;
}

void weak_memory::note_approximated() {
  approximated_ = true;
  engine_.note_sc_in_run_order();
}

std::uint64_t weak_memory::next_event(operation_id me, op_state& o) {
  return mix((std::uint64_t{me} << 32 | ++o.accesses) + 0x9e3779b97f4a7c15ull);
}

// The initial store of every location is named 0: the load that reads it
// names the location, since an operation's accesses follow from what it read.
void weak_memory::read_from(std::uint64_t event, object_id x, std::uint32_t store) {
  reads_from_ += mix(event ^ mix(locations_[x].stores[store].event + 1));
}

// rf as a sum over loads, plus each location's mo (without its initial store,
// always first) folded in order; locations summed, since object ids follow
// first use, which depends on the interleaving.
std::uint64_t weak_memory::execution() const {
  std::uint64_t h = reads_from_;
  for (const location& l : locations_) {
    if (!l.live || l.order.size() < 2) continue;
    std::uint64_t mo = 0x243f6a8885a308d3ull;
    for (std::size_t p = 1; p < l.order.size(); ++p) mo = mix(mo ^ l.stores[l.order[p]].event);
    h += mo;
  }
  return h;
}

weak_memory::view weak_memory::fresh_view() {
  if (spare_views_.empty()) return {};
  view v = std::move(spare_views_.back());
  spare_views_.pop_back();
  return v;
}

weak_memory::location& weak_memory::at(object_id x, const void* current, std::size_t size) {
  if (x >= locations_.size()) locations_.resize(x + 1);
  location& l = locations_[x];
  if (!l.live) {  // first use in this iteration: its value now is the initial store
    l.live = true;
    atomics_used_ = true;
    l.size = static_cast<std::uint8_t>(size);
    store_record initial;
    std::memcpy(initial.value, current, size);
    initial.message = fresh_view();
    l.stores.push_back(std::move(initial));
    l.order.push_back(0);
    l.position.push_back(0);
  }
  return l;
}

weak_memory::op_state& weak_memory::op(operation_id id) {
  if (id >= ops_.size()) ops_.resize(id + 1);
  return ops_[id];
}

void weak_memory::raise_hb(view& v, object_id x, std::uint32_t store) const {
  std::vector<std::uint32_t>& h = *v.hb;
  if (x >= h.size()) h.resize(x + 1, 0);
  if (position(x, store) > position(x, h[x])) h[x] = store;
}

void weak_memory::raise_read_split(view& v, object_id x, std::uint32_t store) const {
  if (x >= v.size()) v.resize(x + 1, 0);
  if (position(x, store) > position(x, v[x])) {
    if (!v.split()) v.make_split();
    v[x] = store;
  }
}

void weak_memory::join_stores(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& from) const {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t x = 0; x < from.size(); ++x)
    if (from[x] != 0 && position(static_cast<object_id>(x), from[x]) > position(static_cast<object_id>(x), into[x]))
      into[x] = from[x];
}

void weak_memory::join(view& into, const view& from) const {
  if (hb_split_) [[unlikely]] join_hb(into, from);
  join_stores(into.at, from.at);
  if (!from.fences.empty()) [[unlikely]] {
    if (into.fences.size() < from.fences.size()) into.fences.resize(from.fences.size(), 0);
    for (std::size_t q = 0; q < from.fences.size(); ++q) into.fences[q] = std::max(into.fences[q], from.fences[q]);
  }
}

// Before `at` is joined: an unsplit `into` splits off its hb first.
void weak_memory::join_hb(view& into, const view& from) const {
  if (!from.split() && !into.split()) return;
  if (!into.split()) into.make_split();
  join_stores(*into.hb, from.happened());
}

// --- psc, checked on the graph (weak_memory.hpp, sc_node) ---

void weak_memory::clock_nodes(const std::vector<std::uint32_t>& clock, bool fences_only,
                              std::vector<std::uint32_t>& out) const {
  out.clear();
  for (std::size_t q = 0; q < clock.size(); ++q)
    if (clock[q] != 0) {
      const std::uint32_t n = nodes_of_[q][entry_count(clock[q]) - 1];
      const std::uint32_t m = fences_only ? nodes_[n].last_fence : n;
      if (m != no_node) out.push_back(m);
    }
}

void weak_memory::access_preds(const op_state& o, object_id x, operation_id me, std::vector<std::uint32_t>& out) {
  out.clear();
  const std::vector<std::uint32_t>& clock = o.current.fences;
  // The clock may hold what accesses of x acquired since the last event of
  // another location (d in sb|≠loc;hb;sb|≠loc is before the access, of
  // another location): an entry they changed is taken as if a plain access
  // came after them.
  const bool run = o.run_loc == x && o.run_gained;
  for (std::size_t q = 0; q < clock.size(); ++q) {
    if (clock[q] == 0) continue;
    const bool loose = run && (q >= o.run_base.size() || clock[q] != o.run_base[q]);
    const std::uint32_t count = entry_count(clock[q]), r = entry_reach(clock[q]);
    const std::uint32_t n = nodes_of_[q][count - 1];
    const sc_node& node = nodes_[n];
    // sb; hb;scb from a fence (an event before the access); hb|loc.
    if (q == me || node.fence || node.x == x) {
      out.push_back(n);
      continue;
    }
    // sb|≠loc;hb;sb|≠loc: exact where an event of another location followed
    // the node (after_elsewhere) and came between the acquisition and the
    // access (not loose); else only if a plain access came between.
    if (r >= after_same_loc) {
      if (r == after_same_loc || loose) approximated();
      out.push_back(n);
      continue;
    }
    // Reached by its own release only: the node before it, which is
    // followed by it (and by the events between), is.
    if (count == 1) continue;
    if (node.same_run || loose) approximated();
    out.push_back(nodes_of_[q][count - 2]);
  }
}

void weak_memory::fence_preds(const std::vector<std::uint32_t>& clock, operation_id me,
                              std::vector<std::uint32_t>& out) const {
  out.clear();
  for (std::size_t q = 0; q < clock.size(); ++q) {
    if (clock[q] == 0) continue;
    const std::uint32_t count = entry_count(clock[q]);
    const std::uint32_t n = nodes_of_[q][count - 1];
    // A node released by itself and acquired only by fences is not before
    // this fence in psc_base (scb needs an access of its location, or an
    // event after it, between); the node before it is.
    if (q == me || nodes_[n].fence || entry_reach(clock[q]) != self) out.push_back(n);
    else if (count > 1) out.push_back(nodes_of_[q][count - 2]);
  }
}

void weak_memory::acquired_preds(const view& message, bool release, const std::vector<std::uint32_t>& clock,
                                 object_id x, operation_id me, std::vector<std::uint32_t>& out) {
  out.clear();
  const std::vector<std::uint32_t>& m = message.fences;
  for (std::size_t q = 0; q < m.size(); ++q) {
    const std::uint32_t known = q < clock.size() ? entry_count(clock[q]) : 0;
    const std::uint32_t count = entry_count(m[q]);
    if (q == me || count <= known) continue;
    // The latest node of x among those newly acquired (hb|loc), and the
    // latest fence (hb;hb|loc: the fence happens before the release store
    // read, of x, or before the release fence of a relaxed one).
    bool access = false, fence = false;
    for (std::uint32_t k = count; k > known && !(access && fence); --k) {
      const std::uint32_t n = nodes_of_[q][k - 1];
      if (nodes_[n].fence) {
        if (!fence) {
          fence = true;
          if (!release) approximated();
          out.push_back(n);
        }
      } else if (!access && nodes_[n].x == x) {
        access = true;
        out.push_back(n);
      }
    }
  }
}

void weak_memory::advance(std::vector<std::uint32_t>& clock, operation_id me, std::uint32_t x) const {
  if (me >= clock.size()) return;
  std::uint32_t& e = clock[me];
  if (e == 0 || entry_reach(e) == after_elsewhere) return;
  const sc_node& n = nodes_[nodes_of_[me][entry_count(e) - 1]];
  const std::uint32_t r = !n.fence && n.x == x ? after_same_loc : after_elsewhere;
  e = entry(entry_count(e), std::max(entry_reach(e), r));
}

void weak_memory::at_location(std::vector<std::uint32_t>& clock, operation_id me, object_id x) const {
  for (std::size_t q = 0; q < clock.size(); ++q)
    if (const std::uint32_t e = clock[q]; e != 0 && q != me && entry_reach(e) == self) {
      const sc_node& n = nodes_[nodes_of_[q][entry_count(e) - 1]];
      if (!n.fence && n.x == x) clock[q] = entry(entry_count(e), self_at_loc);
    }
}

std::size_t weak_memory::node_floor(const sc_node& n, object_id x, bool seen) const {
  if (n.fence) {
    const std::vector<std::uint32_t>& v = seen ? n.before.at : n.before.happened();
    return position(x, x < v.size() ? v[x] : 0);
  }
  return n.writes && n.x == x ? position(x, n.store) : 0;
}

void weak_memory::psc_edge(std::uint32_t from, std::uint32_t to) {
  if (from == to) return;
  auto& p = nodes_[to].preds;
  if (std::find(p.begin(), p.end(), from) == p.end()) p.push_back(from);
}

void weak_memory::ancestors() {
  marked_.assign(nodes_.size(), 0);
  for (std::uint32_t n : reach_) marked_[n] = 1;
  for (std::size_t i = 0; i < reach_.size(); ++i)
    for (std::uint32_t p : nodes_[reach_[i]].preds)
      if (!marked_[p]) {
        marked_[p] = 1;
        reach_.push_back(p);
      }
}

// An access at coordinate c goes before a node n in psc (through the
// fences that happen before it, or itself when seq_cst) when c is below
// n's floor; that closes a cycle when n reaches the fences, or the access.
// The fences' ancestors count with what they had seen (psc_F's eco), the
// seq_cst access's with what happens before them (psc_base's scb;hb).
std::size_t weak_memory::psc_floor(object_id x, const op_state& o, bool sc) {
  const std::vector<std::uint32_t>& clock = o.current.fences;
  std::size_t floor = 0;
  clock_nodes(clock, true, reach_);
  if (!reach_.empty()) {
    ancestors();
    for (std::uint32_t n : reach_) floor = std::max(floor, node_floor(nodes_[n], x, true));
  }
  if (sc) {
    // The access's own predecessors (those of its acquisition, hb|loc, close
    // no cycle: each is mo- or rb-before every store after the one read).
    access_preds(o, x, engine_.running(), reach_);
    if (reach_.empty()) return floor;
    ancestors();
    for (std::uint32_t n : reach_) floor = std::max(floor, node_floor(nodes_[n], x, false));
  }
  return floor;
}

void weak_memory::psc_record(object_id x, std::size_t c, op_state& o, operation_id me, bool sc, bool writes,
                             std::uint32_t store, const store_record* read) {
  step(o, me, x);
  const bool same_run = me < o.current.fences.size() && o.current.fences[me] != 0 &&
                        entry_reach(o.current.fences[me]) == after_same_loc;
  const std::vector<std::uint32_t>& clock = o.current.fences;
  clock_nodes(clock, true, sources_);
  const auto count = static_cast<std::uint32_t>(nodes_.size());
  if (!sources_.empty())
    for (std::uint32_t t = 0; t < count; ++t)
      if (c < node_floor(nodes_[t], x, true))
        for (std::uint32_t a : sources_) psc_edge(a, t);
  // Kept for the fences after it (psc_F: a fence before it is before a
  // later fence that has seen a store it went, or read, mo-before).
  if (!sources_.empty()) (writes ? fenced_stores_ : fenced_loads_).push_back({x, store, clock});
  if (!sc) return;
  const std::uint32_t e = count;
  {
    sc_node n;
    n.op = me;
    n.same_run = same_run;
    n.writes = writes;
    n.x = x;
    n.store = store;
    nodes_.push_back(std::move(n));
  }
  for (std::uint32_t t = 0; t < count; ++t)
    if (c < node_floor(nodes_[t], x, false)) psc_edge(e, t);
  access_preds(o, x, me, preds_);
  for (std::uint32_t p : preds_) psc_edge(p, e);
  if (read != nullptr) {
    acquired_preds(read->message, read->release, clock, x, me, preds_);
    for (std::uint32_t p : preds_) psc_edge(p, e);
  }
  if (writes) {
    // What goes before it in mo, or read a store before it: mo and rb.
    for (std::uint32_t t = 0; t < count; ++t)
      if (!nodes_[t].fence && nodes_[t].x == x && position(x, nodes_[t].store) < c) psc_edge(t, e);
    for (const auto* list : {&fenced_loads_, &fenced_stores_})
      for (const fenced_access& a : *list)
        if (a.x == x && position(x, a.store) < c) {  // (itself, last, is not: c is its own position)
          clock_nodes(a.fences, true, preds_);
          for (std::uint32_t p : preds_) psc_edge(p, e);
        }
  }
  if (nodes_of_.size() <= me) nodes_of_.resize(me + 1);
  nodes_[e].last_fence = nodes_of_[me].empty() ? no_node : nodes_[nodes_of_[me].back()].last_fence;
  nodes_of_[me].push_back(e);
  if (o.current.fences.size() <= me) o.current.fences.resize(me + 1, 0);
  o.current.fences[me] = entry(static_cast<std::uint32_t>(nodes_of_[me].size()), self);
}

// A seq_cst fence follows the nodes that happen before it, each fence F
// such that an event after F is eco-before what this fence has seen
// (psc_F's hb;eco;hb), and each seq_cst access mo- or rb-before a store
// that happens before it (psc_base's scb;hb). It has no successor yet, so
// it closes no cycle.
void weak_memory::seq_cst_fence(op_state& o, operation_id me) {
  if (!graph_) start_graph();
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  {
    sc_node f;
    f.op = me;
    f.fence = true;
    f.last_fence = index;
    f.before = o.current;
    nodes_.push_back(std::move(f));
  }
  fence_preds(o.current.fences, me, preds_);
  for (std::uint32_t p : preds_) psc_edge(p, index);
  const view& before = nodes_[index].before;
  const auto seen_at = [&](object_id x) { return position(x, seen(before, x)); };
  for (const fenced_access& l : fenced_loads_)
    if (position(l.x, l.store) < seen_at(l.x)) {
      clock_nodes(l.fences, true, preds_);
      for (std::uint32_t a : preds_) psc_edge(a, index);
    }
  for (const fenced_access& w : fenced_stores_)
    if (position(w.x, w.store) <= seen_at(w.x)) {
      clock_nodes(w.fences, true, preds_);
      for (std::uint32_t a : preds_) psc_edge(a, index);
    }
  const std::vector<std::uint32_t>& happened = before.happened();
  for (std::uint32_t n = 0; n < index; ++n) {
    const sc_node& a = nodes_[n];
    if (!a.fence && position(a.x, a.store) < position(a.x, a.x < happened.size() ? happened[a.x] : 0))
      psc_edge(n, index);
  }
  if (nodes_of_.size() <= me) nodes_of_.resize(me + 1);
  nodes_of_[me].push_back(index);
  if (o.current.fences.size() <= me) o.current.fences.resize(me + 1, 0);
  o.current.fences[me] = entry(static_cast<std::uint32_t>(nodes_of_[me].size()), self);
}

void weak_memory::end_prefix() {
  prefix_ = false;
  if (logged_ != 0) start_graph();
}

// The prefix's happens-before, replayed from its log: an operation's clock
// counts its nodes and joins the clock of each store it reads (every store
// in the prefix releases, every load acquires, so rf is hb), of the locks it
// takes after their unlocks, of its parent at its spawn and of the
// operations it joined. Each access's node follows the nodes its clock
// counts and, in its location, what went or read before it in mo (psc_base's
// mo and rb: the prefix's stores went last, so mo is the order they ran).
// Every view that exists then gets the clock of its point.
void weak_memory::start_graph() {
  graph_ = true;
  if (logged_ == 0) return;
  auto& op_clock = log_op_clock_;
  auto& object_clock = log_object_clock_;
  auto& store_clock = log_store_clock_;
  for (auto& c : op_clock) c.clear();
  for (auto& c : object_clock) c.clear();
  for (auto& l : store_clock)
    for (auto& c : l) c.clear();
  const auto slot = [](std::vector<std::vector<std::uint32_t>>& v, std::size_t i) -> std::vector<std::uint32_t>& {
    if (v.size() <= i) v.resize(i + 1);
    return v[i];
  };
  const auto join_clock = [](std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& from) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (std::size_t q = 0; q < from.size(); ++q) into[q] = std::max(into[q], from[q]);
  };
  const auto store_slot = [&](object_id x, std::uint32_t s) -> std::vector<std::uint32_t>& {
    if (store_clock.size() <= x) store_clock.resize(x + 1);
    return slot(store_clock[x], s);
  };
  for (std::size_t i = 0; i < logged_; ++i) {
    const prefix_event& ev = prefix_log_[i];
    // Both operations' clocks exist before either is referenced.
    if (ev.kind == prefix_kind::spawn || ev.kind == prefix_kind::join) slot(op_clock, std::max<std::size_t>(ev.op, ev.x));
    // Each event comes after its operation's latest node (advance), and an
    // access after the nodes of its location its clock names (at_location);
    // each operation's run (step) as its events left it.
    op(ev.op);
    if (ev.kind != prefix_kind::access) {
      ops_[ev.op].run_loc = no_location;
      ops_[ev.op].run_gained = false;
    } else if (ops_[ev.op].run_loc != ev.x) {
      ops_[ev.op].run_loc = ev.x;
      ops_[ev.op].run_gained = false;
    }
    switch (ev.kind) {
      case prefix_kind::release:
        advance(slot(op_clock, ev.op), ev.op, no_location);
        join_clock(slot(object_clock, ev.x), op_clock[ev.op]);
        break;
      case prefix_kind::acquire:
        advance(slot(op_clock, ev.op), ev.op, no_location);
        join_clock(op_clock[ev.op], slot(object_clock, ev.x));
        break;
      case prefix_kind::spawn:
        advance(op_clock[ev.op], ev.op, no_location);
        op_clock[ev.x] = op_clock[ev.op];
        break;
      case prefix_kind::join:
        advance(op_clock[ev.op], ev.op, no_location);
        advance(op_clock[ev.x], ev.x, no_location);
        join_clock(op_clock[ev.op], op_clock[ev.x]);
        break;
      case prefix_kind::access: {
        std::vector<std::uint32_t>& clock = slot(op_clock, ev.op);
        const object_id x = ev.x;
        advance(clock, ev.op, x);
        const bool same_run = ev.op < clock.size() && clock[ev.op] != 0 && entry_reach(clock[ev.op]) == after_same_loc;
        const std::vector<std::uint32_t>& read = store_slot(x, ev.writes ? ev.read : ev.store);
        if (!read.empty() && !ops_[ev.op].run_gained) {
          ops_[ev.op].run_base = clock;
          ops_[ev.op].run_gained = true;
        }
        join_clock(clock, read);
        at_location(clock, ev.op, x);
        const auto e = static_cast<std::uint32_t>(nodes_.size());
        {
          sc_node n;
          n.op = ev.op;
          n.same_run = same_run;
          n.writes = ev.writes;
          n.x = x;
          n.store = ev.store;
          nodes_.push_back(std::move(n));
        }
        clock_nodes(clock, false, preds_);
        for (std::uint32_t p : preds_) psc_edge(p, e);
        const std::size_t c = position(x, ev.store);
        for (std::uint32_t t = 0; t < e; ++t) {
          const sc_node& n = nodes_[t];
          if (n.x != x) continue;
          // A store: after every access of x before it (mo, rb). A load: after the store it read.
          if (ev.writes ? position(x, n.store) < c : (n.writes && n.store == ev.store)) psc_edge(t, e);
        }
        if (nodes_of_.size() <= ev.op) nodes_of_.resize(ev.op + 1);
        nodes_of_[ev.op].push_back(e);
        if (clock.size() <= ev.op) clock.resize(ev.op + 1, 0);
        clock[ev.op] = entry(static_cast<std::uint32_t>(nodes_of_[ev.op].size()), self);
        if (ev.writes) store_slot(x, ev.store) = clock;
        break;
      }
    }
  }
  logged_ = 0;
  // The views' clocks. Loads acquire and stores release in the prefix, so a
  // view of no operation is a store's message, a lock's release or, for
  // each operation and location, its last store's (release_store).
  static const std::vector<std::uint32_t> none;
  const auto of_store = [&](object_id x, std::uint32_t s) -> const std::vector<std::uint32_t>& {
    return x < store_clock.size() && s < store_clock[x].size() ? store_clock[x][s] : none;
  };
  for (std::size_t q = 0; q < ops_.size() && q < op_clock.size(); ++q) {
    op_state& o = ops_[q];
    o.current.fences = op_clock[q];
    for (std::size_t x = 0; x < o.release_store.size(); ++x)
      if (view& v = o.release_store[x]; !v.empty() && x < v.size())
        v.fences = of_store(static_cast<object_id>(x), v[x]);
  }
  for (std::size_t x = 0; x < locations_.size() && x < store_clock.size(); ++x)
    for (std::size_t s = 0; s < locations_[x].stores.size() && s < store_clock[x].size(); ++s)
      locations_[x].stores[s].message.fences = store_clock[x][s];
  for (std::size_t b = 0; b < released_.size() && b < object_clock.size(); ++b) released_[b].fences = object_clock[b];
}

std::uint32_t weak_memory::insert(object_id x, std::size_t at_position, const void* value, std::size_t size,
                                  operation_id by, const std::source_location& where) {
  location& l = locations_[x];
  const auto store = static_cast<std::uint32_t>(l.stores.size());
  store_record r;
  std::memcpy(r.value, value, size);
  r.by = by;
  r.where = where;
  r.message = fresh_view();
  l.stores.push_back(std::move(r));
  l.order.insert(l.order.begin() + static_cast<std::ptrdiff_t>(at_position), store);
  l.position.push_back(0);
  for (std::size_t p = at_position; p < l.order.size(); ++p) l.position[l.order[p]] = static_cast<std::uint32_t>(p);
  return store;
}

// What an acquirer of `store` learns, into `message` (empty on entry): the
// storer's view for a release store, its view at its last release fence
// otherwise, plus (RC11's release sequence) what its earlier release stores to
// the same location carried.
void weak_memory::message_of_store(op_state& o, object_id x, bool release, std::uint32_t store, view& message) {
  if (release) message = o.current;
  else if (o.has_release_fence) message = o.release_fence;
  if (x < o.release_store.size() && !o.release_store[x].empty()) join(message, o.release_store[x]);
  // An acquirer of a release store happens after it; of a relaxed one, only
  // after what the release fence or release sequence before it carried.
  if (release) raise(message, x, store);
  else raise_read(message, x, store);
  if (release) {
    if (x >= o.release_store.size()) o.release_store.resize(x + 1);
    o.release_store[x] = message;
  }
}

void weak_memory::note(object_id x, std::uint32_t store, bool placed, std::memory_order order) {
  const location& l = locations_[x];
  const store_record& read = l.stores[store];
  const store_record& newest = l.stores[l.order.back()];
  weak_note n;
  n.placed = placed;
  n.order = order;
  n.read_by = read.by;
  n.read_where = read.where;
  n.newer = static_cast<std::uint32_t>(l.order.size() - 1 - position(x, store));
  n.newest_by = newest.by;
  n.newest_where = newest.where;
  n.newest_size = l.size;
  std::memcpy(&n.newest_bits, newest.value, std::min<std::size_t>(l.size, sizeof n.newest_bits));
  engine_.note_weak(n);
}

void weak_memory::load(object_id x, std::memory_order order, void* value, std::size_t size, bool latest,
                       const std::source_location& loc) {
  location& l = at(x, value, size);
  const operation_id me = engine_.running();
  op_state& o = op(me);
  const bool sc = order == std::memory_order_seq_cst;
  // Any store from the newest this operation has seen onwards in mo
  // (coherence), and that closes no psc cycle; in the prefix, a seq_cst
  // load reads the newest. Choice 0 is the newest, k the k-th older.
  if (!sc) split_hb();
  else sc_access();
  std::size_t oldest = position(x, seen(o.current, x));
  if (prefix_ | graph_) [[unlikely]] {
    if (prefix_) oldest = l.order.size() - 1;
    else oldest = std::max(oldest, psc_floor(x, o, sc));
  }
  const std::size_t candidates = latest ? 1 : l.order.size() - oldest;
  std::uint64_t k = 0;
  if (candidates > 1) {
    choice_names_.clear();
    for (std::size_t c = 0; c < candidates; ++c) choice_names_.push_back(l.stores[l.order[l.order.size() - 1 - c]].event);
    choice ch{step_kind::choose_int, candidates, false, point_kind::read, x};
    ch.names = choice_names_.data();
    k = engine_.choose(ch, loc);
  }
  const std::uint32_t store = l.order[l.order.size() - 1 - k];
  last_read_ = store;
  record(weak_access::what::load, order, x);
  last_.read = l.stores[store].event;
  read_from(next_event(me, o), x, store);
  if (k > 0) note(x, store, false, order);
  if (graph_) [[unlikely]] psc_record(x, position(x, store), o, me, sc, false, store, sc ? &l.stores[store] : nullptr);
  else if (sc && prefix_) log({prefix_kind::access, false, me, x, store, 0});
  // The message first: an acquire load of a release store then finds the
  // store in it, and its view stays unsplit (weak_memory.hpp, view).
  const view& message = locations_[x].stores[store].message;
  if (graph_ && is_acquire(order)) [[unlikely]] acquiring(o, message);
  join(is_acquire(order) ? o.current : o.pending_acquire, message);
  raise_read(o.current, x, store);
  if (graph_) [[unlikely]] at_location(o.current.fences, me, x);
  std::memcpy(value, locations_[x].stores[store].value, size);
}

bool weak_memory::store(object_id x, std::memory_order order, const void* current, const void* value,
                        std::size_t size, const std::source_location& loc) {
  location& l = at(x, current, size);
  const operation_id me = engine_.running();
  op_state& o = op(me);
  const bool sc = order == std::memory_order_seq_cst;
  // Where in mo the store may go: after everything this operation has seen of
  // x, never between a read-modify-write and the store it read, nor so far
  // back that it closes a psc cycle (a seq_cst store may go before a newer
  // store, seq_cst or not, that nothing orders before it in psc: `x=1; y=1
  // || a=y; x=2 (seq_cst)` may end with a=1 and x=1). In the prefix, a
  // seq_cst store goes last. Choice 0 appends.
  // Place k is the k-th such position counted back from the end.
  if (!sc) split_hb();
  else sc_access();
  std::size_t oldest = position(x, seen(o.current, x));
  if (prefix_ | graph_) [[unlikely]] {
    if (prefix_) oldest = l.order.size() - 1;
    else oldest = std::max(oldest, psc_floor(x, o, sc));
  }
  const auto allowed = [&](std::size_t p) { return !l.stores[l.order[p - 1]].read_by_rmw; };
  std::size_t places = 1;
  for (std::size_t p = l.order.size() - 1; p > oldest; --p) places += allowed(p) ? 1 : 0;
  std::uint64_t k = 0;
  if (places > 1) {
    choice_names_.clear();
    for (std::size_t p = l.order.size(); choice_names_.size() < places; --p)
      if (p == l.order.size() || allowed(p)) choice_names_.push_back(l.stores[l.order[p - 1]].event);
    choice ch{step_kind::choose_int, places, false, point_kind::write, x};
    ch.names = choice_names_.data();
    k = engine_.choose(ch, loc);
  }
  std::size_t place = l.order.size();
  for (std::uint64_t skipped = 0; skipped < k;)
    if (allowed(--place)) ++skipped;
  const bool newest = place == l.order.size();
  record(weak_access::what::store, order, x);
  last_.pred = l.stores[l.order[place - 1]].event;
  last_.newest = newest;
  const std::uint32_t store = insert(x, place, value, size, me, loc);
  last_written_ = store;
  locations_[x].stores[store].event = next_event(me, o);
  last_.written = locations_[x].stores[store].event;
  locations_[x].stores[store].release = is_release(order);
  if (!newest) note(x, store, true, order);
  if (graph_) [[unlikely]] {
    psc_record(x, position(x, store), o, me, sc, true, store);
    at_location(o.current.fences, me, x);
  } else if (sc && prefix_) {
    log({prefix_kind::access, true, me, x, store, 0});
  }
  raise(o.current, x, store);
  message_of_store(o, x, is_release(order), store, locations_[x].stores[store].message);
  return newest;
}

void weak_memory::rmw_read(object_id x, std::memory_order order, std::memory_order failure, void* value,
                           const void* expected, std::size_t size, const std::source_location& loc) {
  location& l = at(x, value, size);
  const operation_id me = engine_.running();
  const std::uint32_t read = choose_rmw_read(l, x, op(me), order, failure, expected, size, loc);
  rmw_read_ = {true, x, me, read};
  std::memcpy(value, l.stores[read].value, size);
}

bool weak_memory::update(object_id x, std::memory_order order, void* value, void* after, std::size_t size,
                         const std::source_location& loc, void (*compute)(void*, const void*, void*), void* context) {
  location& l = at(x, value, size);
  const operation_id me = engine_.running();
  op_state& o = op(me);
  const std::uint32_t read = choose_rmw_read(l, x, o, order, order, nullptr, size, loc);
  std::memcpy(value, l.stores[read].value, size);
  compute(context, value, after);
  return record_rmw(l, x, me, o, order, read, after, size, true);
}

std::uint32_t weak_memory::choose_rmw_read(location& l, object_id x, op_state& o, std::memory_order order,
                                           std::memory_order failure, const void* expected, std::size_t size,
                                           const std::source_location& loc) {
  const bool sc_success = order == std::memory_order_seq_cst, sc_failure = failure == std::memory_order_seq_cst;
  if (!sc_success || !sc_failure) split_hb();
  if (sc_success || sc_failure) sc_access();
  // In the prefix, a seq_cst read-modify-write reads the newest store.
  if (prefix_) return l.order.back();
  // The floors of load(): coherence and psc. A compare-exchange's two
  // orders may differ in the second.
  const std::size_t coherent = position(x, seen(o.current, x));
  std::size_t oldest = coherent, sc_oldest = coherent;
  if (graph_) [[unlikely]] {
    oldest = std::max(coherent, psc_floor(x, o, false));
    if (sc_success || sc_failure) sc_oldest = std::max(coherent, psc_floor(x, o, true));
  }
  const std::size_t succeeds_from = sc_success ? sc_oldest : oldest, fails_from = sc_failure ? sc_oldest : oldest;
  const std::size_t lowest = expected == nullptr ? succeeds_from : std::min(succeeds_from, fails_from);
  const std::uint32_t newest = l.order.back();
  if (lowest + 1 >= l.order.size()) return newest;  // only the newest (a seq_cst counter's every step): no choice
  rmw_candidates_.clear();
  choice_names_.clear();
  for (std::size_t p = l.order.size(); p-- > lowest;) {
    const std::uint32_t s = l.order[p];
    const bool succeeds = expected == nullptr || std::memcmp(l.stores[s].value, expected, size) == 0;
    if (p < (succeeds ? succeeds_from : fails_from)) continue;
    if (succeeds && l.stores[s].read_by_rmw) continue;  // atomicity: another read-modify-write sits right after it
    rmw_candidates_.push_back(s);
    choice_names_.push_back(l.stores[s].event);
  }
  // The newest store is never read by a read-modify-write (one would be
  // newer), and no floor is above it: it is always candidate 0.
  std::uint64_t k = 0;
  if (rmw_candidates_.size() > 1) {
    choice ch{step_kind::choose_int, rmw_candidates_.size(), false, point_kind::read, x};
    ch.names = choice_names_.data();
    k = engine_.choose(ch, loc);
  }
  return rmw_candidates_[k];
}

bool weak_memory::rmw(object_id x, std::memory_order order, const void* before, const void* after, std::size_t size,
                      bool wrote) {
  location& l = at(x, before, size);
  const operation_id me = engine_.running();
  // The store rmw_read chose (which took the seq_cst order's step), else the newest.
  const bool chosen = rmw_read_.chosen && rmw_read_.x == x && rmw_read_.by == me;
  rmw_read_.chosen = false;
  if (order != std::memory_order_seq_cst) split_hb();
  return record_rmw(l, x, me, op(me), order, chosen ? rmw_read_.store : l.order.back(), after, size, wrote);
}

bool weak_memory::record_rmw(location& l, object_id x, operation_id me, op_state& o, std::memory_order order,
                             std::uint32_t read, const void* after, std::size_t size, bool wrote) {
  const bool sc = order == std::memory_order_seq_cst;
  const bool newest = read == l.order.back();
  last_read_ = read;
  const std::uint64_t event = next_event(me, o);
  read_from(event, x, read);
  record(wrote ? weak_access::what::rmw : weak_access::what::load, order, x);
  last_.read = l.stores[read].event;
  if (wrote) {
    last_.written = event;
    last_.pred = l.stores[read].event;
    last_.newest = newest;
  }
  if (!newest) note(x, read, false, order);
  // A seq_cst read acquires: its node follows what the store read carried
  // by hb|loc, and no more (its clock is still the one before it).
  const bool sc_read = sc && is_acquire(order);
  if (!wrote && graph_) [[unlikely]] psc_record(x, position(x, read), o, me, sc, false, read, sc_read ? &l.stores[read] : nullptr);
  else if (!wrote && prefix_) log({prefix_kind::access, false, me, x, read, 0});
  std::uint32_t store = 0;
  if (wrote) {
    l.stores[read].read_by_rmw = true;
    // Right after the store it read (rmw ∩ (rb;mo) = ∅).
    store = insert(x, position(x, read) + 1, after, size, me, engine_.step_where());  // may move l.stores
    last_written_ = store;
    l.stores[store].event = event;
    l.stores[store].release = is_release(order);
    if (graph_) [[unlikely]] psc_record(x, position(x, store), o, me, sc, true, store, sc_read ? &l.stores[read] : nullptr);
    else if (prefix_) log({prefix_kind::access, true, me, x, store, read});
  }
  if (graph_ && is_acquire(order)) [[unlikely]] acquiring(o, l.stores[read].message);
  join(is_acquire(order) ? o.current : o.pending_acquire, l.stores[read].message);
  raise_read(o.current, x, read);
  if (graph_) [[unlikely]] at_location(o.current.fences, me, x);
  if (wrote) {
    raise(o.current, x, store);
    view& message = l.stores[store].message;
    message_of_store(o, x, is_release(order), store, message);
    join(message, l.stores[read].message);  // the release sequence continues through it
  }
  return newest;
}

void weak_memory::fence(std::memory_order order) {
  atomics_used_ = true;
  if (prefix_) [[unlikely]] end_prefix();
  record(weak_access::what::fence, order, 0);
  const operation_id me = engine_.running();
  op_state& o = op(me);
  if (graph_) [[unlikely]] step(o, me, no_location);
  if (is_acquire(order)) join(o.current, o.pending_acquire);
  if (order == std::memory_order_seq_cst) seq_cst_fence(o, me);
  if (is_release(order)) {
    o.release_fence = o.current;
    o.has_release_fence = true;
  }
}

void weak_memory::acquire(object_id object) {
  if (atomics_used_ && object < released_.size()) {
    const operation_id me = engine_.running();
    log_edge(prefix_kind::acquire, me, object);
    op_state& o = op(me);
    if (graph_) [[unlikely]] step(o, me, no_location);
    join(o.current, released_[object]);
  }
}

void weak_memory::release(object_id object) {
  if (!atomics_used_) return;
  const operation_id me = engine_.running();
  log_edge(prefix_kind::release, me, object);
  if (object >= released_.size()) released_.resize(object + 1);
  op_state& o = op(me);
  if (graph_) [[unlikely]] step(o, me, no_location);
  join(released_[object], o.current);
}

// op() may grow ops_: both operations' slots exist before either is referenced.
void weak_memory::spawned(operation_id child) {
  if (!atomics_used_) return;
  const operation_id me = engine_.running();
  log_edge(prefix_kind::spawn, me, child);
  op(std::max(child, me));
  if (graph_) [[unlikely]] step(ops_[me], me, no_location);
  ops_[child].current = ops_[me].current;
}

void weak_memory::joined(operation_id child) {
  if (!atomics_used_) return;
  const operation_id me = engine_.running();
  log_edge(prefix_kind::join, me, child);
  op(std::max(child, me));
  if (graph_) [[unlikely]] {
    step(ops_[me], me, no_location);
    advance(ops_[child].current.fences, child, no_location);  // its end, after its last node
  }
  join(ops_[me].current, ops_[child].current);
}

// --- the model API's entry points (heddle/model.hpp, heddle/atomic.hpp) ---

void wm_load(object_id x, std::memory_order order, void* value, std::size_t size, bool latest,
             std::source_location loc) {
  state().load(x, order, value, size, latest, loc);
}
bool wm_store(object_id x, std::memory_order order, const void* current, const void* value, std::size_t size,
              std::source_location loc) {
  return state().store(x, order, current, value, size, loc);
}
void wm_rmw_read(object_id x, std::memory_order order, std::memory_order failure, void* value, const void* expected,
                 std::size_t size, std::source_location loc) {
  state().rmw_read(x, order, failure, value, expected, size, loc);
}
bool wm_rmw_update(object_id x, std::memory_order order, void* value, void* after, std::size_t size,
                   std::source_location loc, void (*compute)(void*, const void*, void*), void* context) {
  return state().update(x, order, value, after, size, loc, compute, context);
}
bool wm_rmw(object_id x, std::memory_order order, const void* before, const void* after, std::size_t size,
            bool wrote) {
  return state().rmw(x, order, before, after, size, wrote);
}
void wm_fence(std::memory_order order) { state().fence(order); }

// Locks, futures, semaphores...: views travel with their happens-before edges.
// Atomics announce their own edges through these hooks too (atomic_edges);
// under rc11 their synchronization is the store histories', so they are skipped.
void wm_acquire(object_id object) {
  if (control.objects[object].kind != object_kind::atomic) state().acquire(object);
}
void wm_release(object_id object) {
  if (control.objects[object].kind != object_kind::atomic) state().release(object);
}
void wm_spawned(operation_id child) { state().spawned(child); }
void wm_joined(operation_id child) { state().joined(child); }

}  // namespace heddle::detail
