// Classic litmus tests under memory_model::rc11, explored exhaustively by dfs:
// heddle must reach exactly the final outcomes RC11 allows (Lahav et al., PLDI
// 2017; the C11 tables of herd7 and of Batty et al., POPL 2011), every allowed
// one and never a forbidden one. The tables below are written from the model,
// with the forbidden outcomes named at each test, not from heddle's output.
// All locations start at 0.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/thread.hpp"

namespace {

using outcome = std::vector<int>;
using outcomes = std::set<outcome>;
constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr auto sc = std::memory_order_seq_cst;
constexpr std::uint64_t bound_4 = 20'000;  // executions of a four-thread test

// Every final outcome of `body` over all rc11 executions dfs explores. The
// four-thread tests have too many interleavings for dfs to finish in a unit
// test's time (about a million executions, 10 s here, when it does; its first
// executions all vary the last thread only): they run `bound` random
// executions instead (fixed seed), which must reach every allowed outcome and
// no forbidden one all the same.
outcomes explore_rc11(const std::function<outcome()>& body, std::uint64_t bound = 0) {
  outcomes seen;
  heddle::options o{.iterations = bound != 0 ? bound : 1'000'000, .strategy = bound != 0 ? "random" : "dfs"};
  o.print_report = false;
  o.out.clear();
  o.memory_model = heddle::memory_model::rc11;
  auto r = heddle::explore(o, [&] { seen.insert(body()); });
  EXPECT_TRUE(r) << r.report;
  if (bound == 0) {
    EXPECT_TRUE(r.stats.exhausted);
  }
  return seen;
}

// All outcomes with `n` values, each in [0, top].
outcomes all_outcomes(std::size_t n, int top) {
  outcomes all{{}};
  for (std::size_t i = 0; i < n; ++i) {
    outcomes next;
    for (const auto& o : all)
      for (int v = 0; v <= top; ++v) {
        auto w = o;
        w.push_back(v);
        next.insert(w);
      }
    all = next;
  }
  return all;
}
outcomes without(outcomes all, const std::vector<outcome>& forbidden) {
  for (const auto& f : forbidden) all.erase(f);
  return all;
}

// SB: x=1; r1=y || y=1; r2=x.
outcome sb(std::memory_order st, std::memory_order ld, bool fences) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1;
  heddle::thread a([&] {
    x.store(1, st);
    if (fences) heddle::atomic_thread_fence(sc);
    r1 = y.load(ld);
  });
  heddle::thread b([&] {
    y.store(1, st);
    if (fences) heddle::atomic_thread_fence(sc);
    r2 = x.load(ld);
  });
  a.join();
  b.join();
  return {r1, r2};
}

TEST(litmus, sb_relaxed_and_release_acquire_allow_both_zero) {
  EXPECT_EQ(explore_rc11([] { return sb(rlx, rlx, false); }), all_outcomes(2, 1));
  EXPECT_EQ(explore_rc11([] { return sb(rel, acq, false); }), all_outcomes(2, 1));
}
TEST(litmus, sb_seq_cst_and_sc_fences_forbid_both_zero) {
  EXPECT_EQ(explore_rc11([] { return sb(sc, sc, false); }), without(all_outcomes(2, 1), {{0, 0}}));
  EXPECT_EQ(explore_rc11([] { return sb(rlx, rlx, true); }), without(all_outcomes(2, 1), {{0, 0}}));
}

// MP: d=1; f=1 || r1=f; r2=d.
outcome mp(std::memory_order st, std::memory_order ld, bool fences) {
  heddle::atomic<int> d{0}, f{0};
  int r1 = -1, r2 = -1;
  heddle::thread a([&] {
    d.store(1, rlx);
    if (fences) heddle::atomic_thread_fence(rel);
    f.store(1, st);
  });
  heddle::thread b([&] {
    r1 = f.load(ld);
    if (fences) heddle::atomic_thread_fence(acq);
    r2 = d.load(rlx);
  });
  a.join();
  b.join();
  return {r1, r2};
}

TEST(litmus, mp_relaxed_allows_flag_without_data) {
  EXPECT_EQ(explore_rc11([] { return mp(rlx, rlx, false); }), all_outcomes(2, 1));
}
TEST(litmus, mp_release_acquire_fences_and_seq_cst_forbid_flag_without_data) {
  const auto allowed = without(all_outcomes(2, 1), {{1, 0}});
  EXPECT_EQ(explore_rc11([] { return mp(rel, acq, false); }), allowed);
  EXPECT_EQ(explore_rc11([] { return mp(rlx, rlx, true); }), allowed);
  EXPECT_EQ(explore_rc11([] { return mp(sc, sc, false); }), allowed);
}
TEST(litmus, mp_release_fence_alone_or_acquire_fence_alone_is_not_enough) {
  // A release fence without an acquire on the reading side (and the converse)
  // does not synchronize: r1=1, r2=0 stays allowed.
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> d{0}, f{0};
              int r1 = -1, r2 = -1;
              heddle::thread a([&] {
                d.store(1, rlx);
                heddle::atomic_thread_fence(rel);
                f.store(1, rlx);
              });
              heddle::thread b([&] {
                r1 = f.load(rlx);
                r2 = d.load(rlx);
              });
              a.join();
              b.join();
              return outcome{r1, r2};
            }),
            all_outcomes(2, 1));
}

// LB: r1=x; y=1 || r2=y; x=1. C11 allows r1=r2=1 (out of thin air in
// general); RC11 forbids it (po ∪ rf acyclic), and so does heddle.
outcome lb(std::memory_order st, std::memory_order ld) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1;
  heddle::thread a([&] {
    r1 = x.load(ld);
    y.store(1, st);
  });
  heddle::thread b([&] {
    r2 = y.load(ld);
    x.store(1, st);
  });
  a.join();
  b.join();
  return {r1, r2};
}

TEST(litmus, lb_never_reads_from_the_future) {
  const auto allowed = without(all_outcomes(2, 1), {{1, 1}});
  EXPECT_EQ(explore_rc11([] { return lb(rlx, rlx); }), allowed);
  EXPECT_EQ(explore_rc11([] { return lb(rel, acq); }), allowed);
}

// CoRR: x=1 || r1=x; r2=x. Forbidden: r1=1, r2=0.
TEST(litmus, corr_reads_never_go_back_in_modification_order) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int r1 = -1, r2 = -1;
              heddle::thread a([&] { x.store(1, rlx); });
              heddle::thread b([&] {
                r1 = x.load(rlx);
                r2 = x.load(rlx);
              });
              a.join();
              b.join();
              return outcome{r1, r2};
            }),
            without(all_outcomes(2, 1), {{1, 0}}));
}

// CoRR2: x=1 || x=2 || r1=x; r2=x || r3=x; r4=x. The two readers must agree
// on one modification order of x: 0 first, then 1 and 2 in either order.
TEST(litmus, corr2_readers_agree_on_one_modification_order) {
  outcomes allowed;
  for (const auto& o : all_outcomes(4, 2)) {
    // rank of a value in mo 0<1<2 (one12) or 0<2<1
    for (bool one_first : {true, false}) {
      auto rank = [&](int v) { return v == 0 ? 0 : (v == 1) == one_first ? 1 : 2; };
      if (rank(o[0]) <= rank(o[1]) && rank(o[2]) <= rank(o[3])) allowed.insert(o);
    }
  }
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int r[4] = {-1, -1, -1, -1};
              heddle::thread a([&] { x.store(1, rlx); });
              heddle::thread b([&] { x.store(2, rlx); });
              heddle::thread c([&] {
                r[0] = x.load(rlx);
                r[1] = x.load(rlx);
              });
              r[2] = x.load(rlx);  // the test body is the fourth thread
              r[3] = x.load(rlx);
              a.join();
              b.join();
              c.join();
              return outcome{r[0], r[1], r[2], r[3]};
            }, bound_4),
            allowed);
}

// CoWR: x=1; r1=x || x=2, with the final x. A read after one's own write reads
// it or a later store: r1=0 and (r1=2, final 1) are forbidden.
TEST(litmus, cowr_a_load_sees_its_own_store_or_later) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int r1 = -1;
              heddle::thread a([&] {
                x.store(1, rlx);
                r1 = x.load(rlx);
              });
              heddle::thread b([&] { x.store(2, rlx); });
              a.join();
              b.join();
              return outcome{r1, x.load(rlx)};
            }),
            (outcomes{{1, 1}, {1, 2}, {2, 2}}));
}

// CoRW: r1=x; x=1 || x=2, with the final x. A store after a read of 2 is
// ordered after it: (r1=2, final 2) is forbidden, and r1=1 is impossible.
TEST(litmus, corw_a_store_goes_after_what_was_read) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int r1 = -1;
              heddle::thread a([&] {
                r1 = x.load(rlx);
                x.store(1, rlx);
              });
              heddle::thread b([&] { x.store(2, rlx); });
              a.join();
              b.join();
              return outcome{r1, x.load(rlx)};
            }),
            (outcomes{{0, 1}, {0, 2}, {2, 1}}));
}

// CoWW: x=1; x=2 || r1=x; r2=x, with the final x: it is always 2, and the
// reader sees 0, 1, 2 in that order only.
TEST(litmus, coww_stores_of_one_thread_stay_in_order) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int r1 = -1, r2 = -1;
              heddle::thread a([&] {
                x.store(1, rlx);
                x.store(2, rlx);
              });
              heddle::thread b([&] {
                r1 = x.load(rlx);
                r2 = x.load(rlx);
              });
              a.join();
              b.join();
              return outcome{x.load(rlx), r1, r2};
            }),
            (outcomes{{2, 0, 0}, {2, 0, 1}, {2, 0, 2}, {2, 1, 1}, {2, 1, 2}, {2, 2, 2}}));
}

// 2+2W: x=1; y=2 || y=1; x=2, final (x, y). (1, 1) needs both stores of each
// thread ordered first in mo: RC11 allows it for relaxed and release stores
// (coherence does not order hb;mo;hb;mo), forbids it for seq_cst.
outcome two_plus_two_w(std::memory_order st) {
  heddle::atomic<int> x{0}, y{0};
  heddle::thread a([&] {
    x.store(1, st);
    y.store(2, st);
  });
  heddle::thread b([&] {
    y.store(1, st);
    x.store(2, st);
  });
  a.join();
  b.join();
  return {x.load(rlx), y.load(rlx)};
}

TEST(litmus, two_plus_two_w) {
  const outcomes all{{1, 1}, {1, 2}, {2, 1}, {2, 2}};
  EXPECT_EQ(explore_rc11([] { return two_plus_two_w(rlx); }), all);
  EXPECT_EQ(explore_rc11([] { return two_plus_two_w(rel); }), all);
  EXPECT_EQ(explore_rc11([] { return two_plus_two_w(sc); }), without(all, {{1, 1}}));
}

// IRIW: x=1 || y=1 || r1=x; r2=y || r3=y; r4=x. The readers may disagree on
// the order of the two independent stores (1,0,1,0) unless everything is
// seq_cst or the readers put seq_cst fences between their loads.
outcome iriw(std::memory_order st, std::memory_order ld, bool fences) {
  heddle::atomic<int> x{0}, y{0};
  int r[4] = {-1, -1, -1, -1};
  heddle::thread a([&] { x.store(1, st); });
  heddle::thread b([&] { y.store(1, st); });
  heddle::thread c([&] {
    r[0] = x.load(ld);
    if (fences) heddle::atomic_thread_fence(sc);
    r[1] = y.load(ld);
  });
  r[2] = y.load(ld);  // the test body is the fourth thread
  if (fences) heddle::atomic_thread_fence(sc);
  r[3] = x.load(ld);
  a.join();
  b.join();
  c.join();
  return {r[0], r[1], r[2], r[3]};
}

TEST(litmus, iriw_relaxed_and_release_acquire_allow_disagreement) {
  EXPECT_EQ(explore_rc11([] { return iriw(rlx, rlx, false); }, bound_4), all_outcomes(4, 1));
  EXPECT_EQ(explore_rc11([] { return iriw(rel, acq, false); }, bound_4), all_outcomes(4, 1));
}
TEST(litmus, iriw_seq_cst_and_sc_fences_forbid_disagreement) {
  const auto allowed = without(all_outcomes(4, 1), {{1, 0, 1, 0}});
  EXPECT_EQ(explore_rc11([] { return iriw(sc, sc, false); }, bound_4), allowed);
  EXPECT_EQ(explore_rc11([] { return iriw(rlx, rlx, true); }, bound_4), allowed);
}

// WRC: x=1 || r1=x; y=1 || r2=y; r3=x. With release/acquire (or seq_cst),
// causality is transitive: (1, 1, 0) is forbidden; relaxed allows it.
outcome wrc(std::memory_order st, std::memory_order ld) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1, r3 = -1;
  heddle::thread a([&] { x.store(1, st); });
  heddle::thread b([&] {
    r1 = x.load(ld);
    y.store(1, st);
  });
  heddle::thread c([&] {
    r2 = y.load(ld);
    r3 = x.load(ld);
  });
  a.join();
  b.join();
  c.join();
  return {r1, r2, r3};
}

TEST(litmus, wrc) {
  EXPECT_EQ(explore_rc11([] { return wrc(rlx, rlx); }), all_outcomes(3, 1));
  const auto allowed = without(all_outcomes(3, 1), {{1, 1, 0}});
  EXPECT_EQ(explore_rc11([] { return wrc(rel, acq); }), allowed);
  EXPECT_EQ(explore_rc11([] { return wrc(sc, sc); }), allowed);
}

// A release sequence: x=1 (release); RMW x+=1 (relaxed, other thread) ||
// r1=x (acquire) == 2 synchronizes with the release store through the RMW.
TEST(litmus, an_rmw_continues_the_release_sequence) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0}, d{0};
              int r1 = -1, r2 = -1;
              heddle::thread a([&] {
                d.store(1, rlx);
                x.store(1, rel);
              });
              heddle::thread b([&] { x.fetch_add(1, rlx); });
              heddle::thread c([&] {
                r1 = x.load(acq);
                r2 = r1 == 2 ? d.load(rlx) : -1;
              });
              a.join();
              b.join();
              c.join();
              return outcome{r1, r2};
            }),
            // r1=2 means the RMW read 1: the release store is its head, so d=1.
            // (r1=1 reads the store itself; r1=0 the initial value; both -1.)
            (outcomes{{0, -1}, {1, -1}, {2, 1}}));
}

// Under the default memory model nothing changes: SB's (0, 0) never appears.
TEST(litmus, the_sc_model_explores_interleavings_only) {
  outcomes seen;
  heddle::options o{.iterations = 1'000'000, .strategy = "dfs"};
  o.print_report = false;
  o.out.clear();
  auto r = heddle::explore(o, [&] { seen.insert(sb(rlx, rlx, false)); });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(seen, without(all_outcomes(2, 1), {{0, 0}}));
}

}  // namespace
