// A brute-force RC11 checker for small straight-line litmus programs, for
// the random litmus tests (litmus_random_test.cpp): it enumerates every
// candidate execution graph (each read's store, rf; each location's
// modification order, mo) and keeps those the axioms of RC11 allow (Lahav et
// al., PLDI 2017, with its release sequence: rs = [W]; po|loc?; [W]; (rf;
// rmw)*): coherence (hb;eco irreflexive), atomicity (an RMW reads its mo
// predecessor), SC (psc = psc_base ∪ psc_F acyclic) and no-thin-air (po ∪ rf
// acyclic). Initial stores happen before everything. Independent of heddle's
// model: written from the paper's definitions, with relations as bit matrices.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <functional>
#include <set>
#include <vector>

namespace rc11_checker {

struct op {
  enum kind_t { load, store, rmw, fence } kind = load;
  int loc = 0;
  std::memory_order order = std::memory_order_relaxed;
  int value = 0;  // store: the value; rmw: what it adds
};
using program = std::vector<std::vector<op>>;
using outcome = std::vector<int>;

inline constexpr int max_events = 16;
using row = std::bitset<max_events>;
struct rel {
  std::array<row, max_events> r{};
  bool has(int a, int b) const { return r[a][b]; }
  void add(int a, int b) { r[a][b] = true; }
  rel operator|(const rel& o) const {
    rel x;
    for (int i = 0; i < max_events; ++i) x.r[i] = r[i] | o.r[i];
    return x;
  }
  rel then(const rel& o) const {  // this ; o
    rel x;
    for (int i = 0; i < max_events; ++i)
      for (int k = 0; k < max_events; ++k)
        if (r[i][k]) x.r[i] |= o.r[k];
    return x;
  }
  rel plus() const {  // transitive closure
    rel x = *this;
    for (int k = 0; k < max_events; ++k)
      for (int i = 0; i < max_events; ++i)
        if (x.r[i][k]) x.r[i] |= x.r[k];
    return x;
  }
  rel opt() const {  // reflexive
    rel x = *this;
    for (int i = 0; i < max_events; ++i) x.r[i][i] = true;
    return x;
  }
  bool irreflexive() const {
    for (int i = 0; i < max_events; ++i)
      if (r[i][i]) return false;
    return true;
  }
  bool acyclic() const { return plus().irreflexive(); }
};

struct event {
  int thread = -1;  // -1: an initial store
  int index = 0;    // in its thread
  op o;
  bool reads() const { return o.kind == op::load || o.kind == op::rmw; }
  bool writes() const { return thread < 0 || o.kind == op::store || o.kind == op::rmw; }
  bool has_loc() const { return thread < 0 || o.kind != op::fence; }
  bool sc() const { return thread >= 0 && o.order == std::memory_order_seq_cst; }
  bool rel() const {
    const auto m = o.order;
    return thread >= 0 && (m == std::memory_order_release || m == std::memory_order_acq_rel ||
                           m == std::memory_order_seq_cst);
  }
  bool acq() const {
    const auto m = o.order;
    return thread >= 0 && (m == std::memory_order_acquire || m == std::memory_order_acq_rel ||
                           m == std::memory_order_seq_cst || m == std::memory_order_consume);
  }
};

// Every final outcome of `p` over its RC11-consistent executions: the values
// its loads and RMWs read, thread by thread in program order, then the final
// value of each location (its last store in mo), for `locations` locations.
inline std::set<outcome> allowed(const program& p, int locations) {
  std::vector<event> ev;
  for (int l = 0; l < locations; ++l) ev.push_back({-1, 0, {op::store, l, std::memory_order_relaxed, 0}});
  for (int t = 0; t < static_cast<int>(p.size()); ++t)
    for (int i = 0; i < static_cast<int>(p[t].size()); ++i) ev.push_back({t, i, p[t][i]});
  const int n = static_cast<int>(ev.size());
  std::vector<int> reads;
  std::vector<std::vector<int>> writes_of(locations);  // non-initial stores
  for (int e = 0; e < n; ++e) {
    if (ev[e].thread >= 0 && ev[e].reads()) reads.push_back(e);
    if (ev[e].thread >= 0 && ev[e].writes()) writes_of[ev[e].o.loc].push_back(e);
  }
  rel po, po_loc, po_nloc;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const bool init_before = ev[a].thread < 0 && ev[b].thread >= 0;
      const bool same_thread = ev[a].thread >= 0 && ev[a].thread == ev[b].thread && ev[a].index < ev[b].index;
      if (!init_before && !same_thread) continue;
      po.add(a, b);
      const bool same_loc = ev[a].has_loc() && ev[b].has_loc() && ev[a].o.loc == ev[b].o.loc;
      if (same_loc) po_loc.add(a, b);
      else po_nloc.add(a, b);
    }
  std::set<outcome> out;
  std::vector<std::vector<int>> mo_of(locations);
  for (int l = 0; l < locations; ++l) mo_of[l] = writes_of[l];
  std::vector<int> rf(reads.size(), 0);  // index into the candidate stores of its location (0: initial)
  auto candidates = [&](int r) {
    std::vector<int> c{ev[r].o.loc};  // the initial store of the location is event loc
    for (int w : writes_of[ev[r].o.loc])
      if (w != r) c.push_back(w);
    return c;
  };
  // Enumerate mo permutations (outer) and rf choices (inner).
  std::function<void(int)> each_mo = [&](int l) {
    if (l < locations) {
      std::sort(mo_of[l].begin(), mo_of[l].end());
      do each_mo(l + 1);
      while (std::next_permutation(mo_of[l].begin(), mo_of[l].end()));
      return;
    }
    rel mo;
    std::vector<int> pos(n, 0);
    for (int loc = 0; loc < locations; ++loc) {
      std::vector<int> order{loc};
      order.insert(order.end(), mo_of[loc].begin(), mo_of[loc].end());
      for (std::size_t i = 0; i < order.size(); ++i) {
        pos[order[i]] = static_cast<int>(i);
        for (std::size_t k = i + 1; k < order.size(); ++k) mo.add(order[i], order[k]);
      }
    }
    std::vector<std::vector<int>> cands;
    for (int r : reads) cands.push_back(candidates(r));
    std::fill(rf.begin(), rf.end(), 0);
    while (true) {
      rel rfr, rmw_rf;  // rf; and rf;[RMW] for release sequences
      std::vector<int> read_from(n, -1);
      for (std::size_t i = 0; i < reads.size(); ++i) {
        const int w = cands[i][rf[i]], r = reads[i];
        rfr.add(w, r);
        read_from[r] = w;
      }
      bool ok = true;
      // atomicity: an RMW is right after the store it read in mo
      for (int r : reads)
        if (ev[r].o.kind == op::rmw && pos[r] != pos[read_from[r]] + 1) ok = false;
      if (ok && (po | rfr).acyclic()) {
        // values: stores' values, RMWs' from what they read (in po ∪ rf order)
        std::vector<int> value(n, 0);
        std::vector<bool> known(n, false);
        for (int e = 0; e < n; ++e)
          if (ev[e].thread < 0 || ev[e].o.kind == op::store) {
            value[e] = ev[e].thread < 0 ? 0 : ev[e].o.value;
            known[e] = true;
          }
        for (bool progress = true; progress;) {
          progress = false;
          for (int r : reads)
            if (ev[r].o.kind == op::rmw && !known[r] && known[read_from[r]]) {
              value[r] = value[read_from[r]] + ev[r].o.value;
              known[r] = progress = true;
            }
        }
        // release sequences: rs = [W]; po|loc?; [W]; (rf;rmw)*
        rel w_only, rmw_id;
        for (int e = 0; e < n; ++e) {
          if (ev[e].writes()) w_only.add(e, e);
          if (ev[e].thread >= 0 && ev[e].o.kind == op::rmw) rmw_id.add(e, e);
        }
        const rel rf_rmw = rfr.then(rmw_id);
        const rel rs = w_only.then(po_loc.opt()).then(w_only).then(rf_rmw.plus().opt());
        rel f_rel_po, po_f_acq, e_rel, e_acq;
        for (int e = 0; e < n; ++e) {
          if (ev[e].rel()) e_rel.add(e, e);
          if (ev[e].acq()) e_acq.add(e, e);
        }
        for (int a = 0; a < n; ++a)
          for (int b = 0; b < n; ++b)
            if (po.has(a, b)) {
              if (ev[a].thread >= 0 && ev[a].o.kind == op::fence) f_rel_po.add(a, b);
              if (ev[b].o.kind == op::fence) po_f_acq.add(a, b);
            }
        const rel sw = e_rel.then(f_rel_po.opt()).then(rs).then(rfr).then(po_f_acq.opt()).then(e_acq);
        const rel hb = (po | sw).plus();
        rel rb;
        for (int r : reads)
          for (int w = 0; w < n; ++w)
            if (w != r && mo.has(read_from[r], w)) rb.add(r, w);
        const rel eco = (rfr | mo | rb).plus();
        if (!hb.irreflexive() || !hb.then(eco).irreflexive()) ok = false;
        if (ok) {
          rel hb_loc, e_sc, f_sc;
          for (int a = 0; a < n; ++a) {
            if (ev[a].sc() && ev[a].o.kind != op::fence) e_sc.add(a, a);
            if (ev[a].sc() && ev[a].o.kind == op::fence) f_sc.add(a, a);
            for (int b = 0; b < n; ++b)
              if (hb.has(a, b) && ev[a].has_loc() && ev[b].has_loc() && ev[a].o.loc == ev[b].o.loc) hb_loc.add(a, b);
          }
          const rel scb = po | po_nloc.then(hb).then(po_nloc) | hb_loc | mo | rb;
          const rel left = e_sc | f_sc.then(hb.opt());
          const rel right = e_sc | hb.opt().then(f_sc);
          const rel psc_base = left.then(scb).then(right);
          const rel psc_f = f_sc.then(hb | hb.then(eco).then(hb)).then(f_sc);
          if (!(psc_base | psc_f).acyclic()) ok = false;
        }
        if (ok) {
          outcome o;
          for (int e = 0; e < n; ++e)
            if (ev[e].thread >= 0 && ev[e].reads()) o.push_back(value[read_from[e]]);
          for (int loc = 0; loc < locations; ++loc) o.push_back(mo_of[loc].empty() ? 0 : value[mo_of[loc].back()]);
          out.insert(o);
        }
      }
      std::size_t i = 0;
      while (i < rf.size() && ++rf[i] == static_cast<int>(cands[i].size())) rf[i++] = 0;
      if (i == rf.size()) break;
    }
  };
  each_mo(0);
  return out;
}

}  // namespace rc11_checker
