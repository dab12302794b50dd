// Litmus tests of causality and of the order of writes under
// memory_model::rc11: ISA2, R, S and RWC, each with relaxed, release/acquire,
// seq_cst and fence variants, explored exhaustively by dfs and by dpor. Each expected set
// is derived from the RC11 axioms (Lahav et al., PLDI 2017, section 3):
//   coherence     hb;eco? is irreflexive
//   atomicity     rmw ∩ (rb;mo) is empty
//   SC            psc = psc_base ∪ psc_F is acyclic, with
//                 psc_base = ([E_sc] ∪ [F_sc];hb?);scb;([E_sc] ∪ hb?;[F_sc]),
//                 psc_F = [F_sc];(hb ∪ hb;eco;hb);[F_sc],
//                 scb = po ∪ po|≠loc;hb;po|≠loc ∪ hb|loc ∪ mo ∪ rb
//   no-thin-air   po ∪ rf is acyclic
// The comment at each test names the cycle that forbids an outcome; every
// outcome not named has an execution with none of them. These agree with the
// C11 tables of herd7 for these shapes. They are written from the model, not
// from heddle's output. All locations start at 0.
#include "litmus.hpp"

namespace {

using namespace litmus;

// ISA2: x=1; y=1 || r1=y; z=1 || r2=z; r3=x, outcome (r1, r2, r3). The first
// link (y) and the second (z) take their orders apart; `fences` puts a release
// fence before y=1, an acq_rel fence between r1=y and z=1, and an acquire
// fence before r3=x.
struct isa2_orders {
  std::memory_order y_store = rlx, y_load = rlx, z_store = rlx, z_load = rlx;
  bool fences = false;
};
outcome isa2(isa2_orders o) {
  heddle::atomic<int> x{0}, y{0}, z{0};
  int r1 = -1, r2 = -1, r3 = -1;
  heddle::thread a([&] {
    x.store(1, rlx);
    if (o.fences) heddle::atomic_thread_fence(rel);
    y.store(1, o.y_store);
  });
  heddle::thread b([&] {
    r1 = y.load(o.y_load);
    if (o.fences) heddle::atomic_thread_fence(acq_rel);
    z.store(1, o.z_store);
  });
  heddle::thread c([&] {
    r2 = z.load(o.z_load);
    if (o.fences) heddle::atomic_thread_fence(acq);
    r3 = x.load(rlx);
  });
  a.join();
  b.join();
  c.join();
  return {r1, r2, r3};
}

// With both links synchronizing, Wx1 po Wy1 sw Ry1 po Wz1 sw Rz1 po Rx0 gives
// Wx1 hb Rx0, and Rx0 rb Wx1: (1, 1, 0) breaks coherence. Relaxed: no hb
// across threads, all eight outcomes (po ∪ rf runs from left to right only).
TEST(litmus, isa2_release_acquire_chains_are_transitive) {
  const auto all = all_outcomes(3, 1);
  const auto allowed = without(all, {{1, 1, 0}});
  EXPECT_EQ(explore_rc11([] { return isa2({}); }), all);
  EXPECT_EQ(explore_rc11([] { return isa2({rel, acq, rel, acq}); }), allowed);
  EXPECT_EQ(explore_rc11([] { return isa2({sc, sc, sc, sc}); }), allowed);
  EXPECT_EQ(explore_rc11([] { return isa2({.fences = true}); }), allowed);
}
// One link alone does not carry Wx1 to the last thread: with only y (or only
// z) synchronizing there is no hb from Wx1 to Rx0, and (1, 1, 0) is allowed.
TEST(litmus, isa2_a_broken_link_breaks_the_chain) {
  const auto all = all_outcomes(3, 1);
  EXPECT_EQ(explore_rc11([] { return isa2({.y_store = rel, .y_load = acq}); }), all);
  EXPECT_EQ(explore_rc11([] { return isa2({.z_store = rel, .z_load = acq}); }), all);
}

// R: x=1; y=1 || y=2; r1=x, outcome (final y, r1). (2, 0) means Wy1 mo Wy2
// while r1 missed Wx1.
outcome r_test(std::memory_order st, std::memory_order ld, bool fences) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1;
  heddle::thread a([&] {
    x.store(1, st);
    if (fences) heddle::atomic_thread_fence(sc);
    y.store(1, st);
  });
  heddle::thread b([&] {
    y.store(2, st);
    if (fences) heddle::atomic_thread_fence(sc);
    r1 = x.load(ld);
  });
  a.join();
  b.join();
  return {y.load(rlx), r1};
}

// Relaxed and release/acquire: nothing reads across threads on y, so there
// is no sw edge, and mo of y alone does not order Wx1 before Rx0. All four.
const outcomes r_all{{1, 0}, {1, 1}, {2, 0}, {2, 1}};
TEST(litmus, r_release_acquire_allows_the_late_store_to_miss) {
  EXPECT_EQ(explore_rc11([] { return r_test(rlx, rlx, false); }), r_all);
  EXPECT_EQ(explore_rc11([] { return r_test(rel, acq, false); }), r_all);
}
// seq_cst: Wx1 po Wy1 mo Wy2 po Rx0 rb Wx1 is a psc_base cycle (all sc).
// sc fences: F0 hb Wy1 mo Wy2 hb F1 and F1 hb Rx0 rb Wx1 hb F0, a psc_F cycle.
TEST(litmus, r_seq_cst_and_sc_fences_forbid_it) {
  const auto allowed = without(r_all, {{2, 0}});
  EXPECT_EQ(explore_rc11([] { return r_test(sc, sc, false); }), allowed);
  EXPECT_EQ(explore_rc11([] { return r_test(rlx, rlx, true); }), allowed);
}

// S: x=2; y=1 || r1=y; x=1, outcome (r1, final x). (1, 2) means the second
// thread saw y=1 and still put x=1 before x=2 in mo. `writer_fence` and
// `reader_fence` put a release fence before y=1 and an acquire fence after
// r1=y.
outcome s_test(std::memory_order st, std::memory_order ld, bool writer_fence, bool reader_fence) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1;
  heddle::thread a([&] {
    x.store(2, rlx);
    if (writer_fence) heddle::atomic_thread_fence(rel);
    y.store(1, st);
  });
  heddle::thread b([&] {
    r1 = y.load(ld);
    if (reader_fence) heddle::atomic_thread_fence(acq);
    x.store(1, rlx);
  });
  a.join();
  b.join();
  return {r1, x.load(rlx)};
}

// When y synchronizes, Wx2 po Wy1 sw Ry1 po Wx1 gives Wx2 hb Wx1, and Wx1 mo
// Wx2 makes hb;mo reflexive (coherence): (1, 2) is forbidden.
const outcomes s_all{{0, 1}, {0, 2}, {1, 1}, {1, 2}};
TEST(litmus, s_a_synchronized_store_goes_after_what_it_saw) {
  const auto allowed = without(s_all, {{1, 2}});
  EXPECT_EQ(explore_rc11([] { return s_test(rel, acq, false, false); }), allowed);
  EXPECT_EQ(explore_rc11([] { return s_test(sc, sc, false, false); }), allowed);
  EXPECT_EQ(explore_rc11([] { return s_test(rlx, rlx, true, true); }), allowed);
}
// Without sw (relaxed, or a release with a relaxed load) hb is po only, and
// Wx1 may precede Wx2 in mo: (1, 2) is allowed.
TEST(litmus, s_relaxed_lets_the_store_go_first) {
  EXPECT_EQ(explore_rc11([] { return s_test(rlx, rlx, false, false); }), s_all);
  EXPECT_EQ(explore_rc11([] { return s_test(rel, rlx, false, false); }), s_all);
  EXPECT_EQ(explore_rc11([] { return s_test(rlx, rlx, true, false); }), s_all);
}

// RWC: x=1 || r1=x; r2=y || y=1; r3=x, outcome (r1, r2, r3), with optional
// seq_cst fences between the two accesses of the last two threads.
outcome rwc(std::memory_order st, std::memory_order ld, bool fences) {
  heddle::atomic<int> x{0}, y{0};
  int r1 = -1, r2 = -1, r3 = -1;
  heddle::thread a([&] { x.store(1, st); });
  heddle::thread b([&] {
    r1 = x.load(ld);
    if (fences) heddle::atomic_thread_fence(sc);
    r2 = y.load(ld);
  });
  heddle::thread c([&] {
    y.store(1, st);
    if (fences) heddle::atomic_thread_fence(sc);
    r3 = x.load(ld);
  });
  a.join();
  b.join();
  c.join();
  return {r1, r2, r3};
}

// Release/acquire: Wx1 hb Rx1 hb Ry0, but Ry0 rb Wy1 hb Rx0 rb Wx1 is
// hb;eco;hb;eco, which coherence allows: (1, 0, 0) is allowed.
TEST(litmus, rwc_release_acquire_allows_the_readers_to_disagree) {
  EXPECT_EQ(explore_rc11([] { return rwc(rlx, rlx, false); }), all_outcomes(3, 1));
  EXPECT_EQ(explore_rc11([] { return rwc(rel, acq, false); }), all_outcomes(3, 1));
}
// seq_cst: Wx1 hb|loc Rx1 po Ry0 rb Wy1 po Rx0 rb Wx1 is a psc_base cycle.
// sc fences: F1 po Ry0 rb Wy1 po F2 and F2 po Rx0 rb;rf Rx1 po F1 (rb;rf is
// in eco) are both hb;eco;hb, a psc_F cycle. (1, 0, 0) is forbidden.
TEST(litmus, rwc_seq_cst_and_sc_fences_forbid_it) {
  const auto allowed = without(all_outcomes(3, 1), {{1, 0, 0}});
  EXPECT_EQ(explore_rc11([] { return rwc(sc, sc, false); }), allowed);
  EXPECT_EQ(explore_rc11([] { return rwc(rlx, rlx, true); }), allowed);
}

// How many executions dpor explores: each location has one store besides its
// initial value (S and R: two, whose mo is the outcome's final value), so
// there is one execution per allowed outcome (GenMC's S: 4).
TEST(litmus_executions, isa2_r_s_rwc_have_one_execution_per_outcome) {
  EXPECT_EQ(counts_rc11([] { return isa2({}); }), (counts{8, 8}));
  EXPECT_EQ(counts_rc11([] { return isa2({rel, acq, rel, acq}); }), (counts{7, 7}));
  EXPECT_EQ(counts_rc11([] { return isa2({.fences = true}); }), (counts{7, 7}));
  EXPECT_EQ(counts_rc11([] { return r_test(rlx, rlx, false); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return r_test(sc, sc, false); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return r_test(rlx, rlx, true); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return s_test(rlx, rlx, false, false); }), (counts{4, 4}));
  EXPECT_EQ(counts_rc11([] { return s_test(rel, acq, false, false); }), (counts{3, 3}));
  EXPECT_EQ(counts_rc11([] { return rwc(rlx, rlx, false); }), (counts{8, 8}));
  EXPECT_EQ(counts_rc11([] { return rwc(sc, sc, false); }), (counts{7, 7}));
  EXPECT_EQ(counts_rc11([] { return rwc(rlx, rlx, true); }), (counts{7, 7}));
}

}  // namespace
