// The rc11 memory model's state for one iteration: each atomic location's
// stores in modification order, and each operation's views.
//
// An operational model in the style of ORC11 (Dang et al., POPL 2020) and
// C11Tester: a load reads an existing store, so no value comes out of thin air
// (RC11's po ∪ rf acyclicity holds by construction). A view maps each atomic
// location to the newest store in its modification order (mo) that an operation
// must not read behind (coherence). Each store keeps a message view: what an
// acquirer learns by reading it (the storer's view for a release store or a
// store after a release fence, the release sequence's for a read-modify-write).
// A read-modify-write reads a store it chooses, as a load does, among those
// no other read-modify-write read, and goes right after it in mo (RC11's
// atomicity). RC11's SC axiom is checked on a graph of the seq_cst fences
// and accesses (sc_node below), built once an iteration leaves its prefix of
// seq_cst accesses only (prefix_). Every choice (which store a
// load reads, where in mo a store goes) is a recorded data choice of the
// engine, choice 0 being the sequentially consistent one. docs/memory-model.md says what is modelled.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <source_location>
#include <vector>

#include "engine/strategy.hpp"
#include "heddle/model.hpp"

namespace heddle::detail {

class engine;

// Spawn edge for the views: the running operation created `child` (model_api.cpp).
void wm_spawned(operation_id child);

class weak_memory {
 public:
  explicit weak_memory(engine& e) : engine_(e) {}
  void clear();

  // `value` holds the location's newest value in mo on entry (its initial
  // value on first use) and the value read on return.
  void load(object_id x, std::memory_order order, void* value, std::size_t size, bool latest,
            const std::source_location& loc);
  // True when the store is now the newest in mo (the caller writes it through).
  bool store(object_id x, std::memory_order order, const void* current, const void* value, std::size_t size,
             const std::source_location& loc);
  // A read-modify-write's read, chosen before its new value is computed:
  // any store from the newest this operation has seen onwards (and, when
  // seq_cst, from the seq_cst stores' onwards) that no other
  // read-modify-write read (RC11's atomicity: it will go right after it in
  // mo). For a compare-exchange, `expected` tells the stores it would
  // succeed on (those) from the ones it fails on (a load with the `failure`
  // order, which any read-modify-write may have read too); null for the
  // others. `value` holds the newest value on entry and the one read on
  // return. Choice 0 is the newest store, the sequentially consistent one.
  void rmw_read(object_id x, std::memory_order order, std::memory_order failure, void* value, const void* expected,
                std::size_t size, const std::source_location& loc);
  // A read-modify-write read the store rmw_read chose (the newest store when
  // none was chosen) and, when `wrote`, stored `after` right after it in mo.
  // True when that store is now the newest (the caller writes it through).
  bool rmw(object_id x, std::memory_order order, const void* before, const void* after, std::size_t size, bool wrote);
  // rmw_read, then `compute(context, value, after)` makes the new value from
  // the one read, then rmw: one call for exchange and fetch_* (not a
  // compare-exchange, whose read decides whether it writes).
  bool update(object_id x, std::memory_order order, void* value, void* after, std::size_t size,
              const std::source_location& loc, void (*compute)(void*, const void*, void*), void* context);
  void fence(std::memory_order order);
  void acquire(object_id object);
  void release(object_id object);
  void spawned(operation_id child);
  void joined(operation_id child);

  // The store the last load or read-modify-write read, and the store the
  // last store or read-modify-write made: indices in their location's
  // creation order, 0 being its initial store. Push-button atomics key the
  // race detector's happens-before messages by them (rt/weak_atomics.cpp).
  std::uint32_t last_read() const noexcept { return last_read_; }
  std::uint32_t last_written() const noexcept { return last_written_; }

  // The identity of this iteration's execution graph so far: which store each
  // load and read-modify-write read (rf) and each location's modification
  // order (mo), 0 when no atomic was used. Events are named by their
  // operation and their index among its atomic accesses, never by the order
  // they ran in, so two interleavings that make the same rf and mo get the
  // same value: dpor counts executions, not interleavings, by it
  // (strategies/dpor_executions.cpp). A 64-bit hash, so two graphs collide
  // with probability about 2^-64 per pair.
  std::uint64_t execution() const;

  // The last atomic access, for dpor's dependence (decision_context::weak).
  const weak_access& last_access() const noexcept { return last_; }

 private:
  // A view: index = object id, value = index of a store in that location's
  // `stores` (0, the initial store, when nothing newer is known). `at` is
  // the coherence view: the newest store the operation has seen, by reading
  // it too. `hb` is the stores that happen before it (RC11's hb: rf is not
  // hb unless it synchronizes), which a seq_cst fence publishes to the
  // seq_cst accesses after it; it is kept only once the two differ (`split`;
  // unsplit, hb is `at`), so tests whose loads only acquire release stores
  // (seq_cst ones among them) never copy it. `fences` travels with it along
  // happens-before: by operation id, the latest of that operation's nodes
  // of the psc graph (its seq_cst fences and accesses) that happens before,
  // and how (an entry: see `reach` below); empty until the graph starts
  // (start_graph).
  struct view {
    std::vector<std::uint32_t> at;
    std::vector<std::uint32_t> fences;
    // hb, once split from `at`: never empty then (an unsplit view keeps
    // the allocation, emptied, for the next iteration). Behind a pointer so
    // that a view, moved with every store's message, stays small.
    std::unique_ptr<std::vector<std::uint32_t>> hb;
    view() = default;
    view(const view& o) : at(o.at), fences(o.fences) {
      if (o.split()) [[unlikely]] hb = std::make_unique<std::vector<std::uint32_t>>(*o.hb);
    }
    view(view&&) noexcept = default;
    view& operator=(view&&) noexcept = default;
    // Copies are on the hot path (each release store's message), and most
    // tests have no seq_cst fence and no load that reads without
    // synchronizing: skip the empty `fences` and the unsplit `hb`.
    view& operator=(const view& o) {
      at = o.at;
      if (!o.fences.empty() || !fences.empty()) [[unlikely]] fences = o.fences;
      if (o.split()) [[unlikely]] {
        if (!hb) hb = std::make_unique<std::vector<std::uint32_t>>();
        *hb = *o.hb;
      } else if (split()) [[unlikely]] {
        hb->clear();
      }
      return *this;
    }
    ~view() = default;
    std::size_t size() const noexcept { return at.size(); }
    std::uint32_t& operator[](std::size_t x) { return at[x]; }
    std::uint32_t operator[](std::size_t x) const { return at[x]; }
    void resize(std::size_t n, std::uint32_t v) { at.resize(n, v); }
    bool split() const noexcept { return hb && !hb->empty(); }
    // hb becomes a copy of at, which it follows from now on on its own.
    void make_split() {
      if (!hb) hb = std::make_unique<std::vector<std::uint32_t>>();
      *hb = at;
      if (hb->empty()) hb->push_back(0);  // 0: the initial store, nothing newer
    }
    const std::vector<std::uint32_t>& happened() const noexcept { return split() ? *hb : at; }
    void clear() noexcept {
      at.clear();
      fences.clear();
      if (hb) hb->clear();
    }
    bool empty() const noexcept { return at.empty() && fences.empty(); }
  };
  struct store_record {
    unsigned char value[16];
    operation_id by = 0;  // 0: the location's value when the iteration first used it
    std::source_location where;  // of the storing operation, for reports
    bool read_by_rmw = false;  // a read-modify-write follows it immediately in mo
    bool release = false;      // a release store: its message is its storer's view, not a fence's
    std::uint64_t event = 0;   // its name in execution(): 0 for the initial store
    view message;
  };
  struct location {
    bool live = false;
    std::uint8_t size = 0;  // of its values, in bytes (at most 16)
    std::vector<store_record> stores;  // creation order
    std::vector<std::uint32_t> order;  // mo: store indices
    std::vector<std::uint32_t> position;  // position[store] = its index in `order`
  };
  static constexpr std::uint32_t no_location = ~0u;  // a fence's, a lock's, a spawn's, a join's event
  struct op_state {
    view current;
    view pending_acquire;  // message views of stores read by non-acquire loads
    view release_fence;    // the view at the last release fence
    bool has_release_fence = false;
    // RC11 release sequence: index = object id, the message view of this
    // operation's last release store there (empty: none), for its po-later stores.
    std::vector<view> release_store;
    std::uint32_t accesses = 0;  // atomic accesses so far: the index that names the next one
    // Its events since the last of another location than run_loc's (or of
    // none): whether one acquired nodes, and the clock before the first that
    // did (access_preds: sb|≠loc before the access needs an event of another
    // location after the acquisition).
    std::uint32_t run_loc = no_location;
    bool run_gained = false;
    std::vector<std::uint32_t> run_base;
  };

  location& at(object_id x, const void* current, std::size_t size);
  op_state& op(operation_id id);
  std::uint32_t position(object_id x, std::uint32_t store) const { return locations_[x].position[store]; }
  void join(view& into, const view& from) const;
  // Each location of `into` to the later in mo of its store and from's.
  void join_stores(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& from) const;
  // `store` happens before v's point (its own store, or one it acquired): both parts.
  void raise(view& v, object_id x, std::uint32_t store) const {
    if (x >= v.size()) v.resize(x + 1, 0);
    if (position(x, store) > position(x, v[x])) v[x] = store;
    if (v.split()) [[unlikely]] raise_hb(v, x, store);
  }
  void raise_hb(view& v, object_id x, std::uint32_t store) const;
  void join_hb(view& into, const view& from) const;
  // v's operation read `store`: coherence only (rf is not hb). Until the
  // iteration's first access weaker than seq_cst (split_hb), every read
  // synchronizes with the store it reads and hb is the coherence view.
  void raise_read(view& v, object_id x, std::uint32_t store) const {
    if (hb_split_) [[unlikely]] raise_read_split(v, x, store);
    else raise(v, x, store);
  }
  void raise_read_split(view& v, object_id x, std::uint32_t store) const;
  // An access weaker than seq_cst: views may differ from their hb from now
  // on, and the iteration's seq_cst prefix ends.
  void split_hb() {
    if (!hb_split_) [[unlikely]] {
      hb_split_ = true;
      end_prefix();
    }
  }
  bool hb_split_ = false;
  // No atomic used and no fence yet in this iteration: every view is empty,
  // and the happens-before edges of locks, spawns and joins carry nothing
  // (a test of locks alone pays only this test).
  bool atomics_used_ = false;
  std::uint32_t seen(const view& v, object_id x) const { return x < v.size() ? v[x] : 0; }
  std::uint32_t insert(object_id x, std::size_t at_position, const void* value, std::size_t size, operation_id by,
                       const std::source_location& where);
  // The report's note on the running step: a load read `store`, or a store was
  // placed as `store`, with newer stores after it in mo.
  void note(object_id x, std::uint32_t store, bool placed, std::memory_order order);
  // rmw_read's choice (taking the seq_cst order's step), and rmw's record of
  // the access once the store it read is known.
  std::uint32_t choose_rmw_read(location& l, object_id x, op_state& o, std::memory_order order,
                                std::memory_order failure, const void* expected, std::size_t size,
                                const std::source_location& loc);
  bool record_rmw(location& l, object_id x, operation_id me, op_state& o, std::memory_order order, std::uint32_t read,
                  const void* after, std::size_t size, bool wrote);
  void message_of_store(op_state& o, object_id x, bool release, std::uint32_t store, view& message);
  view fresh_view();
  // Names the running operation's next atomic access for execution().
  std::uint64_t next_event(operation_id me, op_state& o);
  void read_from(std::uint64_t event, object_id x, std::uint32_t store);

  // RC11's SC axiom (psc acyclic, Lahav et al. PLDI 2017) on a graph, as
  // GenMC checks it: each seq_cst fence and each seq_cst access is a node,
  // and an edge A -> B stands for A psc B: psc_base's scb between nodes
  // (sb; hb|loc; sb|≠loc;hb;sb|≠loc, read off each view's `fences` clock,
  // whose entries say how each operation's latest node happens before:
  // `reach`), and hb;scb, scb;hb into and out of fences; psc_F between
  // fences (hb;eco;hb, through any event); psc_base's mo and rb (an access
  // mo- or rb-before a seq_cst store, or before a store that happens before
  // a fence), from a seq_cst access or from the fences that happen before
  // the access. Edges into an older node come only from a new event,
  // so the graph stays acyclic when each event's choice closes no cycle: an
  // access may not read, or go, so far back in mo that a node it would
  // precede reaches it (or a fence before it). Reading older closes more, so
  // the allowed stores are a suffix of mo (psc_floor).
  //
  // The prefix. Until an iteration's first access weaker than seq_cst or
  // first fence, every seq_cst load reads the newest store and every seq_cst
  // store goes last: RC11 gives a program of seq_cst accesses only its
  // interleavings, and every execution has an interleaving whose run, up to
  // its first weaker access or fence, is the seq_cst accesses before it in
  // (po ∪ rf)+ in psc's order, which reads and places that way. No node is
  // kept then: each seq_cst access appends to prefix_log_ (with the locks',
  // spawns' and joins' happens-before edges among them), and the prefix's
  // end builds their nodes and the views' clocks from it (start_graph), so
  // that later accesses may go, or read, before them in mo where RC11 lets
  // them (`a=y; x=1 (seq_cst) || x=2 (seq_cst); y=1`, the rest relaxed, ends
  // with a=1 and x=2: x=2 runs in the prefix, x=1 goes before it). A test of
  // seq_cst atomics and locks alone pays only the log.
  static constexpr std::uint32_t no_node = ~0u;
  // A clock entry, for operation q: 4·k − 3 + r, where k counts q's nodes
  // that happen before (0: none, the whole entry 0) and r says how the kth,
  // the latest, does. RC11's scb relates two threads' seq_cst accesses A
  // and B through hb only as hb|loc (same location) or sb|≠loc;hb;sb|≠loc:
  // an event after A, of another location, happens before one before B of
  // another location than B's (Lahav et al. PLDI 2017, section 3). So A's
  // own release (a seq_cst store read by an acquire) orders A before
  // another thread's seq_cst access of its location, not of another:
  // `x=1 (sc) || r1=x (acquire); r2=y (sc) || y=1 (sc); r3=x (sc)` may end
  // r1=1, r2=0, r3=0. Entries grow along q's program order (r by q's own
  // later events, or by what happens after the node elsewhere), so joins
  // take the larger.
  enum reach : std::uint32_t {
    self = 0,         // the node itself released, and so far only fences acquired it
    self_at_loc = 1,  // the node itself, and an access of its location happens after it (hb|loc)
    after_same_loc = 2,   // a later event of q, every one between an access of the node's location
    after_elsewhere = 3,  // a later event of q of another location, or of none
  };
  static std::uint32_t entry(std::uint32_t count, std::uint32_t r) noexcept { return 4 * count - 3 + r; }
  static std::uint32_t entry_count(std::uint32_t e) noexcept { return (e + 3) / 4; }
  static std::uint32_t entry_reach(std::uint32_t e) noexcept { return (e + 3) % 4; }
  struct sc_node {
    operation_id op = 0;
    bool fence = false;
    // An access whose operation's previous node is an access of its location
    // with no event of another location between (as far as heddle sees).
    bool same_run = false;
    bool writes = false;        // a seq_cst store or read-modify-write that wrote
    object_id x = 0;            // an access's location
    std::uint32_t store = 0;    // the store it wrote, or (a load) read
    std::uint32_t last_fence = no_node;  // its operation's latest fence at or before it
    view before;                // a fence's: what its operation had seen (at) and what happened before (hb)
    std::vector<std::uint32_t> preds;  // nodes ordered right before it
  };
  // An access some fence happens before (a seq_cst one, a node, too), with
  // its clock, for psc_F with the fences after it: a load and the store it
  // read, or a store.
  struct fenced_access {
    object_id x = 0;
    std::uint32_t store = 0;
    std::vector<std::uint32_t> fences;  // view::fences at the access
  };
  // The latest node (or, `fences_only`, fence) of each operation a clock counts, into out.
  void clock_nodes(const std::vector<std::uint32_t>& clock, bool fences_only, std::vector<std::uint32_t>& out) const;
  // The nodes a seq_cst access of x by `me` with that clock follows in psc
  // (scb, or hb;scb from a fence), one an operation, into out; the rest
  // follow by program order. Under sb|≠loc;hb;sb|≠loc, heddle takes an
  // event it sees after a node for one of another location when it is of
  // the same (a plain access it does not see may lie between), and every
  // event before the access for one of another location than its own:
  // where that made an edge, approximated() says so.
  void access_preds(const op_state& o, object_id x, operation_id me, std::vector<std::uint32_t>& out);
  // The same for a seq_cst fence of `me` (scb;hb?: every node its operation
  // continued after, or that an access of its location followed).
  void fence_preds(const std::vector<std::uint32_t>& clock, operation_id me, std::vector<std::uint32_t>& out) const;
  // An access of x that reads `message` (a seq_cst load's, or RMW's,
  // acquisition) follows, by hb|loc, the latest node of x each operation has
  // in it beyond `clock`, and the fences in it (hb;hb|loc through the store
  // it read, when a release one: approximated() otherwise).
  void acquired_preds(const view& message, bool release, const std::vector<std::uint32_t>& clock, object_id x,
                      operation_id me, std::vector<std::uint32_t>& out);
  // An event of `me` at x (no_location for none) comes after its latest
  // node: that node's entry in me's clock says so. (step() also keeps o's run.)
  void advance(std::vector<std::uint32_t>& clock, operation_id me, std::uint32_t x) const;
  // An access of x by `me` happens after every node its clock names: those
  // of x that were reached only by their own release are now hb|loc-before.
  void at_location(std::vector<std::uint32_t>& clock, operation_id me, object_id x) const;
  // An event of `me` at x: advance, and o's run (run_loc) goes on or starts.
  void step(op_state& o, operation_id me, std::uint32_t x) const {
    advance(o.current.fences, me, x);
    if (o.run_loc != x) {
      o.run_loc = x;
      o.run_gained = false;
    }
  }
  // An access is about to acquire `message`: the run's clock before its
  // first acquisition of nodes.
  static void acquiring(op_state& o, const view& message) {
    if (!o.run_gained && !message.fences.empty()) [[unlikely]] {
      o.run_base = o.current.fences;
      o.run_gained = true;
    }
  }
  // An edge of psc that heddle takes where RC11's may lack it.
  void approximated() {
    if (!approximated_) [[unlikely]] note_approximated();
  }
  void note_approximated();
  bool approximated_ = false;
  // The position in x's mo below which an access at x goes mo- or rb-before
  // node n (or, for a fence, before a store that happens before it; `seen`,
  // before one its operation had seen, psc_F's eco;hb).
  std::size_t node_floor(const sc_node& n, object_id x, bool seen) const;
  // Every node that reaches one in reach_ (the seeds on entry), into reach_.
  void ancestors();
  // The oldest position in x's mo that an access with clock `clock` (a
  // seq_cst one when `sc`) may read, or be placed right after, closing no
  // psc cycle.
  std::size_t psc_floor(object_id x, const op_state& o, bool sc);
  // The access ran at coordinate c of x (the position of the store it read,
  // or of its own store): its edges, and its node when `sc`. `read`: the
  // store a seq_cst read acquires (its message), if any. o's clock is still
  // the one before the access acquired anything.
  void psc_record(object_id x, std::size_t c, op_state& o, operation_id me, bool sc, bool writes, std::uint32_t store,
                  const store_record* read = nullptr);
  void psc_edge(std::uint32_t from, std::uint32_t to);
  void seq_cst_fence(op_state& o, operation_id me);
  // The prefix ends (the first access weaker than seq_cst, or a fence):
  // its seq_cst accesses, if any, become nodes.
  void end_prefix();
  // The graph starts: nodes for prefix_log_'s accesses, with their edges,
  // and every view's clock of them.
  void start_graph();
  // A seq_cst access is about to choose: after the prefix, as a node.
  void sc_access() {
    if (!prefix_ && !graph_) [[unlikely]] start_graph();
  }
  // Logs a happens-before edge of a lock, spawn or join during the prefix,
  // once it has a seq_cst access (one before cannot order two nodes).
  enum class prefix_kind : std::uint8_t { access, release, acquire, spawn, join };
  void log_edge(prefix_kind kind, operation_id op, std::uint32_t other) {
    if (prefix_ && logged_ != 0) [[unlikely]] log({kind, false, op, other, 0, 0});
  }
  bool graph_ = false;  // nodes are kept: past the prefix, and a seq_cst access or fence ran
  bool prefix_ = true;  // only seq_cst accesses so far (weak_memory.hpp, "The prefix")
  struct prefix_event {
    prefix_kind kind = prefix_kind::access;  // release, acquire: x is the object; spawn, join: x is the child
    bool writes = false;    // an access that wrote `store`; otherwise it read `store`
    operation_id op = 0;
    std::uint32_t x = 0;
    std::uint32_t store = 0;
    std::uint32_t read = 0;  // a read-modify-write that wrote: the store it read
  };
  // The log: its first logged_ entries (kept allocated across iterations).
  std::vector<prefix_event> prefix_log_;
  std::size_t logged_ = 0;
  void log(const prefix_event& e) {
    if (logged_ == prefix_log_.size()) [[unlikely]] prefix_log_.resize(2 * logged_ + 32);
    prefix_log_[logged_++] = e;
  }
  std::vector<std::vector<std::uint32_t>> log_op_clock_, log_object_clock_;  // start_graph's scratch
  std::vector<std::vector<std::vector<std::uint32_t>>> log_store_clock_;
  std::vector<sc_node> nodes_;
  std::vector<std::vector<std::uint32_t>> nodes_of_;  // by operation: its nodes' indices
  std::vector<fenced_access> fenced_loads_, fenced_stores_;
  std::vector<std::uint32_t> sources_, reach_, preds_;  // scratch
  std::vector<char> marked_;

  engine& engine_;
  std::vector<location> locations_;  // index = object id
  std::vector<op_state> ops_;        // index = operation id
  std::vector<view> released_;       // index = object id: views released to locks, futures...
  std::uint32_t last_read_ = 0;
  std::uint32_t last_written_ = 0;
  // rmw_read's choice, for the rmw() call of the same step.
  struct rmw_choice {
    bool chosen = false;
    object_id x = 0;
    operation_id by = 0;
    std::uint32_t store = 0;
  } rmw_read_;
  std::vector<std::uint32_t> rmw_candidates_;  // scratch of rmw_read
  std::uint64_t reads_from_ = 0;  // execution()'s rf part: a sum, so the order loads ran in does not count
  // Iterations reuse every vector above (clear() keeps their capacity) and the
  // message views of the last iteration's stores, so that a warm iteration
  // allocates nothing: rc11 then costs seq_cst-only tests little.
  std::vector<view> spare_views_;
  weak_access last_;                        // see last_access()
  std::vector<std::uint64_t> choice_names_;  // choice::names of the choice being made
  void record(weak_access::what kind, std::memory_order order, object_id x) {
    const bool sc = order == std::memory_order_seq_cst;
    ++last_.seq;
    last_.kind = kind;
    last_.sc = sc;
    last_.object = x;
    last_.read = last_.written = last_.pred = 0;
    last_.newest = false;
  }
};

}  // namespace heddle::detail
