// Classic litmus tests under memory_model::rc11, explored exhaustively by dfs
// and by dpor: heddle must reach exactly the final outcomes RC11 allows (Lahav et al., PLDI
// 2017; the C11 tables of herd7 and of Batty et al., POPL 2011), every allowed
// one and never a forbidden one. The tables below are written from the model,
// with the forbidden outcomes named at each test, not from heddle's output.
// All locations start at 0.
#include <algorithm>
#include <optional>

#include "litmus.hpp"

namespace {

using namespace litmus;

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
TEST(litmus, sb_release_acquire_with_sc_fences_forbids_both_zero) {
  EXPECT_EQ(explore_rc11([] { return sb(rel, acq, true); }), without(all_outcomes(2, 1), {{0, 0}}));
}

// SB with each side configured apart: the store's order, the load's order,
// and whether a seq_cst fence sits between them.
struct sb_side {
  std::memory_order store = rlx;
  std::memory_order load = rlx;
  bool fence = false;
};
outcome sb_mixed(sb_side a_side, sb_side b_side) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1;
  heddle::thread a([&] {
    x.store(1, a_side.store);
    if (a_side.fence) heddle::atomic_thread_fence(sc);
    r1 = y.load(a_side.load);
  });
  heddle::thread b([&] {
    y.store(1, b_side.store);
    if (b_side.fence) heddle::atomic_thread_fence(sc);
    r2 = x.load(b_side.load);
  });
  a.join();
  b.join();
  return {r1, r2};
}

// One seq_cst fence orders nothing by itself: psc needs two sc events on a
// cycle, and (0, 0) has only the fence. Allowed.
TEST(litmus, sb_one_sc_fence_alone_allows_both_zero) {
  EXPECT_EQ(explore_rc11([] { return sb_mixed({.fence = true}, {}); }), all_outcomes(2, 1));
}
// A fence on one side and seq_cst accesses on the other: RC11's psc_base has
// F0 -psc-> Wy1 (F0 po Ry0 rb Wy1: [F_sc];hb?;scb;[E_sc]), Wy1 -psc-> Rx0
// (po), Rx0 -psc-> F0 (Rx0 rb Wx1 po F0: [E_sc];scb;hb?;[F_sc]), a cycle, so
// (0, 0) is forbidden.
TEST(litmus, sb_an_sc_fence_against_seq_cst_accesses_forbids_both_zero) {
  EXPECT_EQ(explore_rc11([] { return sb_mixed({.fence = true}, {.store = sc, .load = sc}); }),
            without(all_outcomes(2, 1), {{0, 0}}));
}
// seq_cst stores with relaxed loads (and relaxed stores with seq_cst loads):
// each psc_base edge needs sc events at both ends, and the (0, 0) cycle
// Wx1 po Ry0 rb Wy1 po Rx0 rb Wx1 passes through non-sc events with single
// scb steps only, so psc stays acyclic and (0, 0) is allowed.
TEST(litmus, sb_seq_cst_on_one_access_of_each_pair_allows_both_zero) {
  EXPECT_EQ(explore_rc11([] { return sb_mixed({.store = sc}, {.store = sc}); }), all_outcomes(2, 1));
  EXPECT_EQ(explore_rc11([] { return sb_mixed({.load = sc}, {.load = sc}); }), all_outcomes(2, 1));
}

// SB against an RMW: y=1; fence(seq_cst); r1=x || x.exchange(1, seq_cst);
// r2=y, both loads relaxed. The only psc edge is F -> U (F po Rx0 rb U); from
// U, scb leads to Ry0 only (po), and Ry0 has no hb to F. psc is acyclic and
// (0, 0) is allowed: a seq_cst RMW orders itself, not the relaxed loads after
// it. (A model that lets every seq_cst operation join one global view, as
// heddle's did before, forbids it.)
TEST(litmus, sb_an_sc_fence_against_a_seq_cst_rmw_allows_both_zero) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0}, y{0};
              int r1 = -1, r2 = -1;
              heddle::thread a([&] {
                y.store(1, rlx);
                heddle::atomic_thread_fence(sc);
                r1 = x.load(rlx);
              });
              heddle::thread b([&] {
                (void)x.exchange(1, sc);
                r2 = y.load(rlx);
              });
              a.join();
              b.join();
              return outcome{r1, r2};
            }),
            all_outcomes(2, 1));
}

// SB with seq_cst fences whose order is carried to a third thread:
// x=1; F1; r1=y || y=1; F2; m=1 (release) || r3=m (acquire); r4=x. When r1=0
// (F1 po Ry0 rb Wy1 po F2: F1 before F2 in psc) and r3=1 (F2 happens before
// the third thread's load of x), r4=0 would close the cycle F2 -> Rx0 rb Wx1
// po F1. So (0, 1, 0) is forbidden and the other seven are allowed (with
// r3=0 nothing orders the third thread's read of x).
outcome sb_fences_seen_by_a_third_thread() {
  heddle::atomic<int> x{0}, y{0}, m{0};
  int r1 = -1, r3 = -1, r4 = -1;
  heddle::thread a([&] {
    x.store(1, rlx);
    heddle::atomic_thread_fence(sc);
    r1 = y.load(rlx);
  });
  heddle::thread b([&] {
    y.store(1, rlx);
    heddle::atomic_thread_fence(sc);
    m.store(1, rel);
  });
  heddle::thread c([&] {
    r3 = m.load(acq);
    r4 = x.load(rlx);
  });
  a.join();
  b.join();
  c.join();
  return outcome{r1, r3, r4};
}
TEST(litmus, sb_sc_fences_order_a_third_thread_that_synchronizes_with_one) {
  EXPECT_EQ(explore_rc11(sb_fences_seen_by_a_third_thread), without(all_outcomes(3, 1), {{0, 1, 0}}));
}

// Two seq_cst fences ordered through a seq_cst store's place in mo:
// a=1; F1; b=1 (seq_cst) || b=2; F2; r=a. With b=2 last in mo, F1 po Wb1 mo
// Wb2 po F2 puts F1 before F2 (psc_F's hb;eco;hb), and r=0 would put F2 before
// F1 (F2 po Ra0 rb Wa1 po F1): (final b, r) = (2, 0) is forbidden. With b=1
// last nothing orders F1 before F2, and r=0 is allowed.
TEST(litmus, sc_fences_ordered_through_modification_order_forbid_the_cycle) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> a{0}, b{0};
              int r = -1;
              heddle::thread t([&] {
                a.store(1, rlx);
                heddle::atomic_thread_fence(sc);
                b.store(1, sc);
              });
              heddle::thread u([&] {
                b.store(2, rlx);
                heddle::atomic_thread_fence(sc);
                r = a.load(rlx);
              });
              t.join();
              u.join();
              return outcome{b.load(rlx), r};
            }),
            (outcomes{{1, 0}, {1, 1}, {2, 1}}));
}

// Two seq_cst fences with seq_cst accesses between them in the run, found by
// litmus_random on more seeds: x=1 (release); F1; a=y (seq_cst) || b=x
// (seq_cst) || c=x (acquire); d=y (acquire); F2; x=2, F seq_cst. Nothing
// orders x=1 before x=2 in mo when F2 runs before F1 (c=0, d=0), so final
// x=1 is allowed. The model once ordered two fences by the run when a
// seq_cst access ran between them, so only the schedules with F2 first
// reached it, and dpor had to run both orders of the fences; kept as a
// regression test (docs/memory-model.md, "dpor under rc11").
outcome fences_around_seq_cst_accesses() {
  heddle::atomic<int> x{0}, y{0};
  int a = -1, b = -1, c = -1, d = -1;
  heddle::thread t([&] {
    x.store(1, rel);
    heddle::atomic_thread_fence(sc);
    a = y.load(sc);
  });
  heddle::thread u([&] { b = x.load(sc); });
  heddle::thread v([&] {
    c = x.load(acq);
    d = y.load(acq);
    heddle::atomic_thread_fence(sc);
    x.store(2, rlx);
  });
  t.join();
  u.join();
  v.join();
  return outcome{a, b, c, d, x.load(rlx)};
}
TEST(litmus, dpor_runs_both_orders_of_sc_fences_that_seq_cst_accesses_separate) {
  const auto final_x_1 = [](const outcomes& s) {
    return std::any_of(s.begin(), s.end(), [](const outcome& o) { return o.back() == 1; });
  };
  EXPECT_TRUE(final_x_1(explore_rc11(fences_around_seq_cst_accesses)));  // asserts dpor's == dfs's
  // b=0: the seq_cst load of x ran before x=1 and F1, F2 before F1's thread's
  // seq_cst load of y; the one dpor missed while it took that load to commute
  // with F2 (and kept it asleep past F2).
  EXPECT_TRUE(explore_dpor_rc11(fences_around_seq_cst_accesses).seen.count({0, 0, 0, 0, 1}))
      << "x=2 before x=1 in mo";
}

// A seq_cst store against an earlier relaxed store of the same location:
// x=1; y=1 || a=y; x=2, the store of 2 seq_cst, with the final x. With y
// relaxed, hb is po only: nothing orders x=1 before x=2, and psc (which needs
// two seq_cst events on a cycle; there is one) is acyclic, so all four
// (a, x) are allowed, (1, 1) included: x=2 goes before x=1 in mo although it
// ran after it. With y release/acquire, a=1 gives Wx1 hb Wx2, and mo must
// follow hb (coherence): (1, 1) is forbidden.
outcome sc_store_after_a_relaxed_store(std::memory_order y_store, std::memory_order y_load) {
  heddle::atomic<int> x{0}, y{0};
  int a = -1;
  heddle::thread t([&] {
    x.store(1, rlx);
    y.store(1, y_store);
  });
  heddle::thread u([&] {
    a = y.load(y_load);
    x.store(2, sc);
  });
  t.join();
  u.join();
  return outcome{a, x.load(rlx)};
}
TEST(litmus, a_seq_cst_store_may_go_before_a_relaxed_store_that_ran_earlier) {
  EXPECT_EQ(explore_rc11([] { return sc_store_after_a_relaxed_store(rlx, rlx); }), (outcomes{{0, 1}, {0, 2}, {1, 1}, {1, 2}}));
  EXPECT_EQ(explore_rc11([] { return sc_store_after_a_relaxed_store(rel, acq); }), (outcomes{{0, 1}, {0, 2}, {1, 2}}));
}

// A seq_cst fence against a seq_cst store its thread read nothing of:
// r1=x; F; r2=y || y=1 (seq_cst); x=1 (seq_cst) || x=2, outcome (r1, r2,
// final x). RC11 relates a seq_cst access E to a fence F as E psc F through
// scb;hb?, and rf is not hb: with the loads relaxed and x=2 relaxed, r1=2
// makes Wx2 rf Rx po F, which relates Wx1 (mo-before Wx2) to nothing. So
// (2, 0, 2) is allowed: F psc Wy1 (F po Ry0 rb Wy1) psc Wx1 (po), and no psc
// edge leaves Wx1. r1=1 forces r2=1 (Wx1 is a release, the fence acquires
// it: Wy1 hb Ry), which forbids (1, 0, 1) and (1, 0, 2); the other ten are
// allowed. With x=2 a release store and r1 an acquire load, r1=2 makes Wx2
// hb F, and Wx1 mo Wx2 hb F is Wx1 psc F, closing F psc Wy1 psc Wx1: (2, 0,
// 2) is forbidden then, and only then. The model let the fence publish
// every store its thread had seen, read or not, and so forbade (2, 0, 2) in
// both.
outcome fence_after_a_relaxed_read(std::memory_order x2_store, std::memory_order r1_load) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1;
  heddle::thread t([&] {
    r1 = x.load(r1_load);
    heddle::atomic_thread_fence(sc);
    r2 = y.load(rlx);
  });
  heddle::thread u([&] {
    y.store(1, sc);
    x.store(1, sc);
  });
  heddle::thread v([&] { x.store(2, x2_store); });
  t.join();
  u.join();
  v.join();
  return outcome{r1, r2, x.load(rlx)};
}
TEST(litmus, an_sc_fence_orders_a_seq_cst_store_only_after_stores_that_happen_before_it) {
  outcomes all;
  for (int r1 : {0, 1, 2})
    for (int r2 : {0, 1})
      for (int last : {1, 2})
        if (r1 != 1 || r2 != 0) all.insert({r1, r2, last});
  EXPECT_EQ(explore_rc11([] { return fence_after_a_relaxed_read(rlx, rlx); }), all);
  EXPECT_EQ(explore_rc11([] { return fence_after_a_relaxed_read(rel, acq); }), without(all, {{2, 0, 2}}));
}

// Two seq_cst fences and a seq_cst store that ran between them: x=1; F1;
// z=1 (seq_cst); w=1 || a=w; v=1 || b=v; F2; c=x, the rest relaxed, outcome
// (a, b, c). Every location has one store besides its initial one, so mo is
// fixed and the 8 outcomes are the 8 candidate graphs. With w and v
// relaxed, hb is po: coherence holds in each (every thread reads a location
// once), and po ∪ rf only goes forward (T1 to T2 to T3). psc: F1 psc Wz1
// (sb); c=0 gives F2 psc F1 (F2 po Rx0 rb Wx1 po F1, psc_F's hb;eco;hb).
// Nothing leaves Wz1 towards F2 (Wz1 sb Ww1, and Ww1 is not hb-before F2:
// its rf is relaxed; Wz1 is mo-before nothing) and nothing leads from F1 to
// F2 (what follows F1 in T1 is eco-related to nothing po-before F2). So psc
// is acyclic in all 8: every outcome is allowed, (1, 1, 0) included, which
// needs z=1 to run between the fences (w=1 before a=w, v=1 before b=v).
// The model ordered a fence before a later one when a seq_cst access ran
// between them, and so forbade (1, 1, 0). With w and v release/acquire, F1
// hb F2 when a=b=1, and c=0 closes F1 hb F2 psc F1: (1, 1, 0) is forbidden
// then, and only then.
outcome sc_access_between_two_fences(std::memory_order st, std::memory_order ld) {
  heddle::atomic<int> x{0}, z{0}, w{0}, v{0};
  int a = -1, b = -1, c = -1;
  heddle::thread t([&] {
    x.store(1, rlx);
    heddle::atomic_thread_fence(sc);
    z.store(1, sc);
    w.store(1, st);
  });
  heddle::thread u([&] {
    a = w.load(ld);
    v.store(1, st);
  });
  heddle::thread r([&] {
    b = v.load(ld);
    heddle::atomic_thread_fence(sc);
    c = x.load(rlx);
  });
  t.join();
  u.join();
  r.join();
  return {a, b, c};
}
TEST(litmus, a_seq_cst_access_between_two_sc_fences_does_not_order_them) {
  EXPECT_EQ(explore_rc11([] { return sc_access_between_two_fences(rlx, rlx); }), all_outcomes(3, 1));
  EXPECT_FALSE(litmus::last_dpor_ordered_seq_cst_as_run);
  EXPECT_EQ(explore_rc11([] { return sc_access_between_two_fences(rel, acq); }),
            without(all_outcomes(3, 1), {{1, 1, 0}}));
}

// A seq_cst store that ran before a seq_cst fence of another thread: F0;
// y=1 (seq_cst); w=1 || a=w; F; b=y, the rest relaxed, outcome (a, b).
// (1, 0) needs y=1 to run before F (w=1 after it, a=w before F), yet it is
// allowed: F psc Wy1 (F po Ry0 rb Wy1), F0 psc Wy1 (sb) and F0 psc F (F0 hb
// Ww1 rf Rw po F, psc_F); nothing leaves Wy1 (Wy1 sb Ww1, which is not hb
// anything in the other thread: its rf is relaxed), so psc is acyclic. The
// other three are allowed too (no cycle without b=0 and a=1, and coherence
// holds with hb = po). The model ordered a seq_cst store before every fence
// that ran after it, and so forbade (1, 0). (F0 makes y=1 run after the
// iteration's first fence, out of the seq_cst prefix; the test below is the
// same with y=1 in the prefix: `fence_first` false.)
// With w release/acquire, a=1 makes Wy1 hb Ry, and b=0 breaks coherence.
outcome sc_store_then_a_fence_of_another_thread(bool fence_first, std::memory_order st, std::memory_order ld) {
  heddle::atomic<int> y{0}, w{0};
  int a = -1, b = -1;
  heddle::thread t([&] {
    if (fence_first) heddle::atomic_thread_fence(sc);
    y.store(1, sc);
    w.store(1, st);
  });
  heddle::thread u([&] {
    a = w.load(ld);
    heddle::atomic_thread_fence(sc);
    b = y.load(rlx);
  });
  t.join();
  u.join();
  return {a, b};
}
TEST(litmus, a_seq_cst_store_that_ran_before_an_sc_fence_need_not_precede_it) {
  EXPECT_EQ(explore_rc11([] { return sc_store_then_a_fence_of_another_thread(true, rlx, rlx); }), all_outcomes(2, 1));
  EXPECT_FALSE(litmus::last_dpor_ordered_seq_cst_as_run);
  EXPECT_EQ(explore_rc11([] { return sc_store_then_a_fence_of_another_thread(true, rel, acq); }),
            without(all_outcomes(2, 1), {{1, 0}}));
}

// The same without F0: y=1 (seq_cst); w=1 || a=w; F; b=y, the rest
// relaxed, outcome (a, b). The derivation above holds unchanged (F0 only
// added F0 psc Wy1 and F0 psc F): psc has at most F psc Wy1 (F po Ry0 rb
// Wy1), so all 4 outcomes are allowed. (1, 0) needs y=1 to run before F, in
// the iteration's seq_cst prefix, before its first access weaker than
// seq_cst; the model made such a store precede every fence, and so forbade
// (1, 0); it is now a node like any other (weak_memory.hpp, "The prefix").
// With w release/acquire, a=1 makes Wy1 hb Ry and b=0 breaks coherence.
TEST(litmus, a_seq_cst_store_before_the_first_fence_need_not_precede_it) {
  EXPECT_EQ(explore_rc11([] { return sc_store_then_a_fence_of_another_thread(false, rlx, rlx); }), all_outcomes(2, 1));
  EXPECT_FALSE(litmus::last_dpor_ordered_seq_cst_as_run);
  EXPECT_EQ(explore_rc11([] { return sc_store_then_a_fence_of_another_thread(false, rel, acq); }),
            without(all_outcomes(2, 1), {{1, 0}}));
}

// Two seq_cst stores of one location, ordered in mo against the order they
// ran: a=y; x=1 (seq_cst) || x=2 (seq_cst); y=1, y's accesses of order
// `ld` and `st`, outcome (a, final x). Four candidate graphs: a in {0, 1},
// and x=1 or x=2 last in mo. With y relaxed: hb is po (Wy1 rf Ry does not
// synchronize), so coherence holds in each (each thread touches each
// location once); po ∪ rf is acyclic (rf only into T1); psc has the two
// seq_cst stores, related by mo alone (no po between them, Wx1 has no po
// successor for po;hb;po, and no hb between them for hb|loc): acyclic. All
// 4 are allowed. (1, 2) needs y=1, so x=2, to run before a=y, so before
// x=1, which the model placed after x=2 (seq_cst accesses of one location
// in the order they ran), so it forbade (1, 2). With y release/acquire, or
// seq_cst, a=1 gives Wy1 sw Ry, so Wx2 hb Wx1 (po;sw;po) and coherence
// puts x=2 before x=1 in mo: (1, 2) is forbidden.
outcome seq_cst_stores_against_their_run_order(std::memory_order st, std::memory_order ld) {
  heddle::atomic<int> x{0}, y{0};
  int a = -1;
  heddle::thread t([&] {
    a = y.load(ld);
    x.store(1, sc);
  });
  heddle::thread u([&] {
    x.store(2, sc);
    y.store(1, st);
  });
  t.join();
  u.join();
  return {a, x.load(rlx)};
}
TEST(litmus, two_seq_cst_stores_of_one_location_may_go_in_mo_against_the_order_they_ran) {
  const outcomes all = {{0, 1}, {0, 2}, {1, 1}, {1, 2}};
  EXPECT_EQ(explore_rc11([] { return seq_cst_stores_against_their_run_order(rlx, rlx); }), all);
  EXPECT_FALSE(litmus::last_dpor_ordered_seq_cst_as_run);
  EXPECT_EQ(explore_rc11([] { return seq_cst_stores_against_their_run_order(rel, acq); }), without(all, {{1, 2}}));
  EXPECT_EQ(explore_rc11([] { return seq_cst_stores_against_their_run_order(sc, sc); }), without(all, {{1, 2}}));
  EXPECT_FALSE(litmus::last_dpor_ordered_seq_cst_as_run);
}

// A seq_cst load that reads a store older than a seq_cst store that ran
// before it: x=1 (seq_cst); y=1 || a=y; b=x (seq_cst), y relaxed, outcome
// (a, b). With y relaxed, hb is po; the seq_cst events Wx1 and Rx are
// related in psc only by rb when b=0 (Rx rb Wx1): acyclic, and coherence
// holds (no hb across threads), so all 4 are allowed. (1, 0) needs x=1 to
// run before a=y, so before b=x, which the model made read x=1 or newer.
// With y release/acquire, a=1 gives Wx1 hb Rx, and b=0 breaks coherence.
outcome seq_cst_load_behind_a_seq_cst_store(std::memory_order st, std::memory_order ld) {
  heddle::atomic<int> x{0}, y{0};
  int a = -1, b = -1;
  heddle::thread t([&] {
    x.store(1, sc);
    y.store(1, st);
  });
  heddle::thread u([&] {
    a = y.load(ld);
    b = x.load(sc);
  });
  t.join();
  u.join();
  return {a, b};
}
TEST(litmus, a_seq_cst_load_may_read_behind_a_seq_cst_store_that_ran_before_it) {
  EXPECT_EQ(explore_rc11([] { return seq_cst_load_behind_a_seq_cst_store(rlx, rlx); }), all_outcomes(2, 1));
  EXPECT_FALSE(litmus::last_dpor_ordered_seq_cst_as_run);
  EXPECT_EQ(explore_rc11([] { return seq_cst_load_behind_a_seq_cst_store(rel, acq); }),
            without(all_outcomes(2, 1), {{1, 0}}));
}

// RC11's scb between seq_cst accesses of two threads is hb|loc or
// sb|≠loc;hb;sb|≠loc, not all of hb: x=1 (seq_cst) || r1=x (ld); r2=y
// (seq_cst) || y=1 (seq_cst); r3=x (seq_cst), outcome (r1, r2, r3). One
// store a location: mo is fixed, rf a choice a load, 8 candidate graphs.
// Each is coherent (no release read by the third thread orders x=1 before
// r3, and the second thread reads each location once) and po ∪ rf is
// acyclic (no thread loads before it stores). psc's nodes are Wx1, Ry, Wy1
// and Rx3: Wy1 po Rx3; r2=0 gives Ry rb Wy1, r2=1 Wy1 hb|loc Ry; r3=0 gives
// Rx3 rb Wx1, r3=1 Wx1 hb|loc Rx3. With ld acquire and r1=1, Wx1 happens
// before Ry, but Wx1 has no po-successor and Ry is not of x: no scb edge,
// nothing enters Ry from Wx1, and all 8 are allowed. (1, 0, 0) was hidden
// while heddle took hb between seq_cst accesses for psc. With ld seq_cst,
// Wx1 hb|loc Rx1 po Ry, and (1, 0, 0) closes Ry Wy1 Rx3 Wx1 Rx1 Ry.
outcome seq_cst_store_read_by_an_acquire(std::memory_order ld) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1, r3 = -1;
  heddle::thread t([&] { x.store(1, sc); });
  heddle::thread u([&] {
    r1 = x.load(ld);
    r2 = y.load(sc);
  });
  y.store(1, sc);
  r3 = x.load(sc);
  t.join();
  u.join();
  return {r1, r2, r3};
}
TEST(litmus, a_seq_cst_store_read_by_an_acquire_is_not_psc_before_the_readers_seq_cst_access_of_another_location) {
  EXPECT_EQ(explore_rc11([] { return seq_cst_store_read_by_an_acquire(acq); }), all_outcomes(3, 1));
  EXPECT_FALSE(litmus::last_dpor_ordered_seq_cst_as_run);
  EXPECT_EQ(explore_rc11([] { return seq_cst_store_read_by_an_acquire(sc); }),
            without(all_outcomes(3, 1), {{1, 0, 0}}));
}

// Two fences ordered through a seq_cst store after one of them that the
// other's thread reads behind: y=1; F1; x=1 (seq_cst) || x=2 || r1=x; F2;
// r2=y, the rest relaxed, outcome (r1, r2, final x). psc_F: F1 hb Wx1, and
// Wx1 eco Rx when r1=1 (rf) or when r1=2 with x=1 before x=2 in mo (mo;rf),
// with Rx po F2: F1 psc F2. F2 po Ry0 rb Wy1 po F1: r2=0 gives F2 psc F1.
// So (2, 0, 2) closes a cycle. (1, 0, *) breaks coherence: Wx1 is a
// release, F2 an acquire fence, so Wx1 sw F2 and Wy1 hb Ry. The other 9 of
// the 12 are allowed (r2=1, any r1 and mo; r1=0 and r2=0 with either mo,
// nothing before F2 being eco-after F1's side; r1=2, r2=0 with x=2 first).
// Wx1 is a node of the psc graph: the fence F1 before it must reach F2
// through it (weak_memory.cpp, psc_record keeps it for the fences after it).
outcome sc_fences_ordered_through_a_seq_cst_store() {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1;
  heddle::thread t([&] {
    y.store(1, rlx);
    heddle::atomic_thread_fence(sc);
    x.store(1, sc);
  });
  heddle::thread u([&] { x.store(2, rlx); });
  heddle::thread v([&] {
    r1 = x.load(rlx);
    heddle::atomic_thread_fence(sc);
    r2 = y.load(rlx);
  });
  t.join();
  u.join();
  v.join();
  return {r1, r2, x.load(rlx)};
}
TEST(litmus, sc_fences_ordered_through_a_seq_cst_store_forbid_the_cycle) {
  outcomes all;
  for (int r1 : {0, 1, 2})
    for (int r2 : {0, 1})
      for (int last : {1, 2})
        if (!(r1 == 1 && r2 == 0) && !(r1 == 2 && r2 == 0 && last == 2)) all.insert({r1, r2, last});
  EXPECT_EQ(explore_rc11(sc_fences_ordered_through_a_seq_cst_store), all);
}

// MP: d=1; f=1 || r1=f; r2=d, with an optional fence before the flag's
// store (writer) and after its load (reader).
using fence_order = std::optional<std::memory_order>;
outcome mp(std::memory_order st, std::memory_order ld, fence_order writer_fence = {}, fence_order reader_fence = {}) {
  heddle::atomic<int> d{0}, f{0};
  int r1 = -1, r2 = -1;
  heddle::thread a([&] {
    d.store(1, rlx);
    if (writer_fence) heddle::atomic_thread_fence(*writer_fence);
    f.store(1, st);
  });
  heddle::thread b([&] {
    r1 = f.load(ld);
    if (reader_fence) heddle::atomic_thread_fence(*reader_fence);
    r2 = d.load(rlx);
  });
  a.join();
  b.join();
  return {r1, r2};
}

TEST(litmus, mp_relaxed_allows_flag_without_data) {
  EXPECT_EQ(explore_rc11([] { return mp(rlx, rlx); }), all_outcomes(2, 1));
}
// (1, 0) is forbidden whenever the flag's rf edge is part of sw: Wd po
// [release, or release fence po] Wf rf Rf [acquire, or po acquire fence] po
// Rd gives Wd hb Rd, and Rd reading 0 (rb Wd) breaks coherence (hb;eco).
TEST(litmus, mp_release_acquire_fences_and_seq_cst_forbid_flag_without_data) {
  const auto allowed = without(all_outcomes(2, 1), {{1, 0}});
  EXPECT_EQ(explore_rc11([] { return mp(rel, acq); }), allowed);
  EXPECT_EQ(explore_rc11([] { return mp(rlx, rlx, rel, acq); }), allowed);
  EXPECT_EQ(explore_rc11([] { return mp(sc, sc); }), allowed);
  EXPECT_EQ(explore_rc11([] { return mp(rlx, rlx, sc, sc); }), allowed);
}
TEST(litmus, mp_a_fence_synchronizes_with_an_access_on_the_other_side) {
  const auto allowed = without(all_outcomes(2, 1), {{1, 0}});
  EXPECT_EQ(explore_rc11([] { return mp(rel, rlx, {}, acq); }), allowed);  // release store, acquire fence
  EXPECT_EQ(explore_rc11([] { return mp(rlx, acq, rel, {}); }), allowed);  // release fence, acquire load
}
// Without a release on the writer's side or an acquire on the reader's there
// is no sw edge, hence no hb from Wd to Rd: (1, 0) stays allowed.
TEST(litmus, mp_release_without_acquire_or_acquire_without_release_is_not_enough) {
  const auto all = all_outcomes(2, 1);
  EXPECT_EQ(explore_rc11([] { return mp(rlx, rlx, rel, {}); }), all);  // release fence alone
  EXPECT_EQ(explore_rc11([] { return mp(rlx, rlx, {}, acq); }), all);  // acquire fence alone
  EXPECT_EQ(explore_rc11([] { return mp(rel, rlx); }), all);           // release store, relaxed load
  EXPECT_EQ(explore_rc11([] { return mp(rlx, acq); }), all);           // relaxed store, acquire load
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
// (coherence does not order hb;mo;hb;mo), forbids it for seq_cst (psc: Wx1 po
// Wy2 mo Wy1 po Wx2 mo Wx1) and with seq_cst fences between the stores
// (psc_F: F0 hb Wy2 mo Wy1 hb F1 and F1 hb Wx2 mo Wx1 hb F0).
outcome two_plus_two_w(std::memory_order st, bool fences = false) {
  heddle::atomic<int> x{0}, y{0};
  heddle::thread a([&] {
    x.store(1, st);
    if (fences) heddle::atomic_thread_fence(sc);
    y.store(2, st);
  });
  heddle::thread b([&] {
    y.store(1, st);
    if (fences) heddle::atomic_thread_fence(sc);
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
  EXPECT_EQ(explore_rc11([] { return two_plus_two_w(rlx, true); }), without(all, {{1, 1}}));
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

// WRC: x=1 || r1=x; y=1 || r2=y; r3=x, with the orders of each link apart
// and optional fences in the middle thread (release, before y=1) and the last
// (acquire, before r3=x).
struct wrc_orders {
  std::memory_order x_store = rlx, x_load = rlx, y_store = rlx, y_load = rlx;
  bool fences = false;
};
outcome wrc(wrc_orders o) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1, r3 = -1;
  heddle::thread a([&] { x.store(1, o.x_store); });
  heddle::thread b([&] {
    r1 = x.load(o.x_load);
    if (o.fences) heddle::atomic_thread_fence(rel);
    y.store(1, o.y_store);
  });
  heddle::thread c([&] {
    r2 = y.load(o.y_load);
    if (o.fences) heddle::atomic_thread_fence(acq);
    r3 = x.load(o.x_load);
  });
  a.join();
  b.join();
  c.join();
  return {r1, r2, r3};
}

// (1, 1, 0) is forbidden as soon as the y link synchronizes: Rx1 po Wy1 sw
// Ry1 po Rx0 gives Rx1 hb Rx0, and Rx0 rb Wx1 rf Rx1 is eco, so hb;eco is
// reflexive (coherence). The x link's orders do not matter; with the y link
// relaxed nothing orders Rx0 after Wx1 and all eight outcomes are allowed.
TEST(litmus, wrc) {
  const auto all = all_outcomes(3, 1);
  const auto allowed = without(all, {{1, 1, 0}});
  EXPECT_EQ(explore_rc11([] { return wrc({}); }), all);
  EXPECT_EQ(explore_rc11([] { return wrc({rel, acq, rel, acq}); }), allowed);
  EXPECT_EQ(explore_rc11([] { return wrc({sc, sc, sc, sc}); }), allowed);
}
TEST(litmus, wrc_only_the_second_link_needs_to_synchronize) {
  const auto all = all_outcomes(3, 1);
  const auto allowed = without(all, {{1, 1, 0}});
  EXPECT_EQ(explore_rc11([] { return wrc({.y_store = rel, .y_load = acq}); }), allowed);
  EXPECT_EQ(explore_rc11([] { return wrc({.fences = true}); }), allowed);
  EXPECT_EQ(explore_rc11([] { return wrc({.x_store = rel, .x_load = acq}); }), all);
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

// Atomicity: x=1 || r=x.fetch_add(10), final x. An RMW sits right after the
// store it reads in mo (rmw ∩ (rb;mo) = ∅): it reads 1 and leaves 11, or reads
// 0 and x=1 follows it (final 1). (r=0, final 10) would put x=1 between the
// RMW and the store it read; (r=1, final 1) would put it after the RMW.
TEST(litmus, an_rmw_reads_the_store_right_before_it_in_modification_order) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int r = -1;
              heddle::thread a([&] { x.store(1, rlx); });
              heddle::thread b([&] { r = x.fetch_add(10, rlx); });
              a.join();
              b.join();
              return outcome{r, x.load(rlx)};
            }),
            (outcomes{{0, 1}, {1, 11}}));
  // Two relaxed increments never lose one.
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int r1 = -1, r2 = -1;
              heddle::thread a([&] { r1 = x.fetch_add(1, rlx); });
              heddle::thread b([&] { r2 = x.fetch_add(1, rlx); });
              a.join();
              b.join();
              return outcome{r1, r2, x.load(rlx)};
            }),
            (outcomes{{0, 1, 2}, {1, 0, 2}}));
}

// A read-modify-write may read an older store than the newest, one that no
// other read-modify-write read (RC11's atomicity), and go right after it in
// mo. x=1; y=1 || a=y; b=x.fetch_add(10), all relaxed, outcome (a, b,
// final x). y has one store, so a is 0 or 1 (rf), and the RMW U reads 0 or
// x=1. Reading 0 puts U right after 0 in mo, then x=1: mo 0, U, 1, final 1.
// With a=1 nothing orders x=1 before U: hb is po (rf relaxed), and the
// only cycle candidate, x=1 hb U mo x=1, needs x=1 hb U. So all four
// outcomes: (a, 0, 1) and (a, 1, 11) for a in {0, 1}. (1, 0, 1) needs U to
// run after x=1 and read behind it; heddle hid it while RMWs read the newest
// store. With y release/acquire, a=1 makes x=1 hb U, and U reading 0 would
// put U mo-before x=1 (x=1 hb U mo x=1, a coherence cycle): (1, 0, 1) is
// forbidden.
outcome rmw_behind_a_store(std::memory_order y_store, std::memory_order y_load) {
  heddle::atomic<int> x{0}, y{0};
  int a = -1, b = -1;
  heddle::thread t([&] {
    x.store(1, rlx);
    y.store(1, y_store);
  });
  a = y.load(y_load);
  b = x.fetch_add(10, rlx);
  t.join();
  return outcome{a, b, x.load(rlx)};
}
TEST(litmus, an_rmw_may_read_a_store_older_than_one_that_ran_before_it) {
  const outcomes all{{0, 0, 1}, {0, 1, 11}, {1, 0, 1}, {1, 1, 11}};
  EXPECT_EQ(explore_rc11([] { return rmw_behind_a_store(rlx, rlx); }), all);
  EXPECT_EQ(explore_rc11([] { return rmw_behind_a_store(rel, acq); }), without(all, {{1, 0, 1}}));
}
// The same with a compare-exchange 0 -> 10: it succeeds exactly when it
// reads 0 (then it is an RMW right after 0, and x=1 after it: final 1), and
// fails when it reads x=1 (a load; final 1). Outcome (a, succeeded, final
// x): a=1 with success is the older read, allowed with y relaxed, forbidden
// with y release/acquire (x=1 hb the CAS, which may then not read 0).
outcome cas_behind_a_store(std::memory_order y_store, std::memory_order y_load) {
  heddle::atomic<int> x{0}, y{0};
  int a = -1;
  heddle::thread t([&] {
    x.store(1, rlx);
    y.store(1, y_store);
  });
  a = y.load(y_load);
  int expected = 0;
  const bool ok = x.compare_exchange_strong(expected, 10, rlx);
  t.join();
  return outcome{a, ok ? 1 : 0, x.load(rlx)};
}
TEST(litmus, a_compare_exchange_may_succeed_on_a_store_older_than_one_that_ran_before_it) {
  const outcomes all{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}};
  EXPECT_EQ(explore_rc11([] { return cas_behind_a_store(rlx, rlx); }), all);
  EXPECT_EQ(explore_rc11([] { return cas_behind_a_store(rel, acq); }), without(all, {{1, 1, 1}}));
}
// Atomicity with older reads: two compare-exchanges 0 -> 1 and 0 -> 2 and
// a store x=3, in three threads, all relaxed; outcome (ok1, ok2). A CAS
// succeeds when it reads 0, and then sits right after 0 in mo; both doing
// so would put two stores right after 0: (1, 1) is forbidden, even where
// x=3 ran first and both read behind it. One reads 0 and the other reads
// x=3 or the winner's store (fails): (1, 0), (0, 1); both read x=3 (a failed
// CAS stores nothing): (0, 0).
TEST(litmus, two_compare_exchanges_never_both_succeed_on_one_store) {
  EXPECT_EQ(explore_rc11([] {
              heddle::atomic<int> x{0};
              int ok1 = -1, ok2 = -1;
              heddle::thread t1([&] {
                int e = 0;
                ok1 = x.compare_exchange_strong(e, 1, rlx) ? 1 : 0;
              });
              heddle::thread t2([&] {
                int e = 0;
                ok2 = x.compare_exchange_strong(e, 2, rlx) ? 1 : 0;
              });
              x.store(3, rlx);
              t1.join();
              t2.join();
              return outcome{ok1, ok2};
            }),
            (outcomes{{0, 0}, {0, 1}, {1, 0}}));
}

// --- How many executions dpor explores (docs/memory-model.md derives SB and
// MP by hand). An execution is a graph: each load's store (rf) and each
// location's modification order (mo); the final loads in the test body read
// the last store in mo, so they add no choice. Where every location has one
// store besides its initial value, rf fixes the values read and mo is
// trivial, so there is one execution per allowed outcome; 2+2W's outcome is
// its two mo orders. Cross-checked with GenMC's own litmus suite
// (tests/correct/litmus/*/expected.rc11.mo.in: SB 4, SB+4sc 3, MP (release/
// acquire) 3, LB 3, 2+2W 4, 2+2W+4sc 3, CoRR2 72, CoWR 3, CoRW 3).

TEST(litmus_executions, sb_has_one_execution_per_pair_of_reads) {
  EXPECT_EQ(counts_rc11([] { return sb(rlx, rlx, false); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return sb(rel, acq, false); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return sb(sc, sc, false); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return sb(rlx, rlx, true); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return sb(rel, acq, true); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return sb_mixed({.fence = true}, {}); }), (counts{4, 4}));
  // A fence against seq_cst accesses: 3 executions ((0, 0) closes a psc
  // cycle). dpor runs both orders of the fence and each seq_cst access
  // (dpor_races.cpp), and the fence or x=1, whichever runs first, ends the
  // seq_cst prefix and wakes the sleeping seq_cst accesses, which may then
  // read or go older whichever ran first: 8 runs (6 while y=1 run before
  // the fence preceded every fence, which the model no longer does).
  EXPECT_EQ(counts_rc11([] { return sb_mixed({.fence = true}, {.store = sc, .load = sc}); }), (counts{3, 8}));
  // The fences' order reaches a third thread through release/acquire: 7
  // executions, one run each.
  EXPECT_EQ(counts_rc11(sb_fences_seen_by_a_third_thread), (counts{7, 7}));
  EXPECT_EQ(counts_rc11([] { return sb_mixed({.store = sc}, {.store = sc}); }), (counts{4, 4}));
}
TEST(litmus_executions, mp_counts_its_reads_from_choices) {
  EXPECT_EQ(counts_rc11([] { return mp(rlx, rlx); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return mp(rel, acq); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return mp(rlx, rlx, rel, acq); }), (counts{3, 3}));
  // seq_cst flag: 3 executions in 5 runs. dpor runs both orders of the
  // seq_cst store and load of f, as in an interleaving (dpor_races.cpp);
  // with the store first, after the relaxed d=1 ended the seq_cst prefix,
  // the load may also read 0 (psc has only Rf0 rb Wf1), an execution the
  // load-first order makes too.
  EXPECT_EQ(counts_rc11([] { return mp(sc, sc); }), (counts{3, 5}));
  EXPECT_EQ(counts_rc11([] { return mp(rel, rlx); }), (counts{4, 4}));
  // seq_cst fences: 3 executions (no (1,0)), each run once: the model checks
  // the fences' order (psc) on the graph, so dpor does not run both orders.
  EXPECT_EQ(counts_rc11([] { return mp(rlx, rlx, sc, sc); }), (counts{3, 3}));
}
// MP written as a reader that reads the data only after seeing the flag: when
// the flag reads 0 there is no second load, so relaxed has 1 + 2 = 3
// executions, and release/acquire 1 + 1 = 2.
TEST(litmus_executions, mp_with_a_guarded_read_has_one_execution_fewer) {
  auto guarded = [](std::memory_order st, std::memory_order ld) {
    heddle::atomic<int> d{0}, f{0};
    int r1 = -1, r2 = -1;
    heddle::thread a([&] {
      d.store(1, rlx);
      f.store(1, st);
    });
    heddle::thread b([&] {
      r1 = f.load(ld);
      if (r1 == 1) r2 = d.load(rlx);
    });
    a.join();
    b.join();
    return outcome{r1, r2};
  };
  EXPECT_EQ(counts_rc11([&] { return guarded(rlx, rlx); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([&] { return guarded(rel, acq); }), (counts{2, 2}));
}
TEST(litmus_executions, lb_2_plus_2w_and_the_coherence_tests) {
  EXPECT_EQ(counts_rc11([] { return lb(rlx, rlx); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return two_plus_two_w(rlx); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return two_plus_two_w(sc); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return two_plus_two_w(rlx, true); }), (counts{3, 3}));
  // CoRR: r1, r2 over init and x=1, never back in mo: (0,0), (0,1), (1,1).
  EXPECT_EQ(counts_rc11([] {
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
            }), (counts{3, 3}));
  // CoWW: mo is 0, 1, 2; the reader's two loads go forward in it: 3+2+1.
  EXPECT_EQ(counts_rc11([] {
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
              return outcome{r1, r2};
            }), (counts{6, 6}));
  // CoWR: mo 0,1,2 with r1 in {1, 2}, or mo 0,2,1 with r1=1: 3, one run
  // each. x=2 placed before x=1 cannot be read by r1=x (coherence), so it
  // does not race with the load, and the reversal of (r1=x, x=2) carries the
  // place x=2 had (right after x=1): with x=2 first, the load reads it.
  EXPECT_EQ(counts_rc11([] {
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
            }), (counts{3, 3}));
}
// A seq_cst store against a relaxed store: rf of a times mo of x, 2 * 2 = 4
// with y relaxed; with y release/acquire, a=1 fixes mo: 1 + 2 = 3. Three
// stores of x, two of them seq_cst, one relaxed, nothing ordering them: RC11
// allows every mo of the three (psc orders the two seq_cst stores by mo,
// either way), 3! = 6, each a final value... (the outcome is the final x
// only, so the count is what tells the six apart). dpor takes 12 runs for
// them: it runs both orders of the two seq_cst stores as in an
// interleaving, and once x=2 has ended the seq_cst prefix either store may
// go before the other whichever ran first, so most mo orders are made in
// two runs (counted once).
TEST(litmus_executions, seq_cst_stores_among_relaxed_ones) {
  EXPECT_EQ(counts_rc11([] { return sc_store_after_a_relaxed_store(rlx, rlx); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return sc_store_after_a_relaxed_store(rel, acq); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] {
              heddle::atomic<int> x{0};
              heddle::thread a([&] { x.store(1, sc); });
              heddle::thread b([&] { x.store(2, rlx); });
              heddle::thread c([&] { x.store(3, sc); });
              a.join();
              b.join();
              c.join();
              return outcome{x.load(rlx)};
            }), (counts{6, 12}));
}
// CoRR2: mo of x is 0, then 1 and 2 either way (2); each reader's two loads
// go forward in it over three stores (3+2+1 = 6 pairs each): 2 * 6 * 6 = 72.
TEST(litmus_executions, corr2_has_72) {
  EXPECT_EQ(counts_rc11([] {
              heddle::atomic<int> x{0};
              int r[4] = {-1, -1, -1, -1};
              heddle::thread a([&] { x.store(1, rlx); });
              heddle::thread b([&] { x.store(2, rlx); });
              heddle::thread c([&] {
                r[0] = x.load(rlx);
                r[1] = x.load(rlx);
              });
              r[2] = x.load(rlx);
              r[3] = x.load(rlx);
              a.join();
              b.join();
              c.join();
              return outcome{r[0], r[1], r[2], r[3]};
            }), (counts{72, 72}));
}
TEST(litmus_executions, iriw_and_wrc) {
  EXPECT_EQ(counts_rc11([] { return iriw(rlx, rlx, false); }), (counts{16, 16}));
  EXPECT_EQ(counts_rc11([] { return iriw(sc, sc, false); }), (counts{15, 15}));
  EXPECT_EQ(counts_rc11([] { return iriw(rlx, rlx, true); }), (counts{15, 15}));
  EXPECT_EQ(counts_rc11([] { return wrc({}); }), (counts{8, 8}));
  EXPECT_EQ(counts_rc11([] { return wrc({rel, acq, rel, acq}); }), (counts{7, 7}));
  EXPECT_EQ(counts_rc11([] { return wrc({.fences = true}); }), (counts{7, 7}));
}
// Read-modify-writes: x=1 || fetch_add reads 0 (x=1 then goes after it in mo)
// or reads 1: 2. The release sequence test: the RMW reads 0 (mo 0, U, W) or
// W (mo 0, W, U), and the acquire load reads any of the three stores, but
// reading U=2 forces d=1: 3 + 3 = 6.
TEST(litmus_executions, read_modify_writes) {
  EXPECT_EQ(counts_rc11([] {
              heddle::atomic<int> x{0};
              int r = -1;
              heddle::thread a([&] { x.store(1, rlx); });
              heddle::thread b([&] { r = x.fetch_add(10, rlx); });
              a.join();
              b.join();
              return outcome{r, x.load(rlx)};
            }), (counts{2, 2}));
  EXPECT_EQ(counts_rc11([] {
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
            }), (counts{6, 6}));
}
// Read-modify-writes that read older stores: rmw_behind_a_store has 2 rf
// choices of y times 2 of the RMW (mo follows: right after what it read),
// 4; with y release/acquire a=1 leaves the RMW one choice: 3. Three
// relaxed writers of x, one store and two fetch_adds, in three threads:
// every order of the three in mo is consistent (no hb between threads), and
// it fixes what each RMW read: 3! = 6.
TEST(litmus_executions, read_modify_writes_that_read_older_stores) {
  EXPECT_EQ(counts_rc11([] { return rmw_behind_a_store(rlx, rlx); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return rmw_behind_a_store(rel, acq); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return cas_behind_a_store(rlx, rlx); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] {
              heddle::atomic<int> x{0};
              int r1 = -1, r2 = -1;
              heddle::thread a([&] { x.store(1, rlx); });
              heddle::thread b([&] { r1 = x.fetch_add(10, rlx); });
              r2 = x.fetch_add(100, rlx);
              a.join();
              b.join();
              return outcome{r1, r2, x.load(rlx)};
            }), (counts{6, 6}));
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
