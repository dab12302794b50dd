// What a verdict claims: explore()'s result names what a pass did not check
// (iterations cut at max_steps, memory orders weaker than seq_cst run as
// seq_cst, spurious events bounded per call site), and an unqualified
// "(verified)" appears only when nothing narrowed it.
#include <gtest/gtest.h>

#include <string>

#include "heddle/heddle.hpp"
#include "runner/summary_json.hpp"
#include "runner/verdict.hpp"

namespace {

heddle::options quiet(const char* strategy, std::uint64_t iterations = 1000) {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = strategy;
  o.print_report = false;
  o.out = "";
  return o;
}

bool mentions(const std::vector<std::string>& caveats, const char* text) {
  for (const std::string& c : caveats)
    if (c.find(text) != std::string::npos) return true;
  return false;
}

// Double-checked locking: the flag's order is the parameter.
void double_checked(std::memory_order load, std::memory_order store) {
  heddle::atomic<bool> ready{false};
  heddle::mutex m;
  int value = 0;
  auto get = [&] {
    if (!ready.load(load)) {
      heddle::lock_guard lock(m);
      if (!ready.load(load)) {
        value = 42;
        ready.store(true, store);
      }
    }
    return value;
  };
  heddle::thread t([&] { HEDDLE_ASSERT(get() == 42); });
  HEDDLE_ASSERT(get() == 42);
  t.join();
}

}  // namespace

TEST(verdict, dpor_on_relaxed_double_checked_locking_is_verified_for_sequential_consistency_only) {
  const heddle::result r = heddle::explore(
      quiet("dpor"), [] { double_checked(std::memory_order_relaxed, std::memory_order_relaxed); });
  ASSERT_FALSE(r.bug);
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_EQ(r.stats.weak_order_iterations, r.stats.iterations);
  EXPECT_NE(r.verdict().find("verified for sequentially consistent interleavings only"), std::string::npos)
      << r.verdict();
  EXPECT_EQ(r.verdict().find("(verified)"), std::string::npos) << r.verdict();
  EXPECT_TRUE(mentions(r.stats.caveats(), "weaker than seq_cst")) << testing::PrintToString(r.stats.caveats());
}

TEST(verdict, acquire_release_counts_as_weaker_than_seq_cst_too) {
  const heddle::result r = heddle::explore(
      quiet("dpor"), [] { double_checked(std::memory_order_acquire, std::memory_order_release); });
  EXPECT_EQ(r.stats.weak_order_iterations, r.stats.iterations);
  const heddle::result fence = heddle::explore(quiet("random", 10), [] {
    heddle::atomic_thread_fence(std::memory_order_release);
  });
  EXPECT_EQ(fence.stats.weak_order_iterations, 10u);
}

// Under rc11 the flag's relaxed orders are explored, but `value` is plain
// memory, which heddle does not see in a test not built with heddle-c++: the
// relaxed publication is a data race under the C++ memory model that this
// run cannot report, so the pass says plain memory was not checked. With
// seq_cst atomics there is nothing to say.
TEST(verdict, rc11_pass_of_relaxed_atomics_without_instrumented_code_says_plain_memory_was_not_checked) {
  heddle::options o = quiet("dpor");
  o.memory_model = heddle::memory_model::rc11;
  const heddle::result relaxed =
      heddle::explore(o, [] { double_checked(std::memory_order_relaxed, std::memory_order_relaxed); });
  ASSERT_FALSE(relaxed.bug) << relaxed.report;
  EXPECT_TRUE(relaxed.stats.exhausted);
  EXPECT_EQ(relaxed.stats.plain_unseen_iterations, relaxed.stats.iterations);
  EXPECT_EQ(relaxed.stats.weak_order_iterations, 0u);
  const std::vector<std::string> caveats = relaxed.stats.caveats();
  ASSERT_EQ(caveats.size(), 1u) << testing::PrintToString(caveats);
  EXPECT_NE(caveats[0].find("all " + std::to_string(relaxed.stats.iterations) +
                            " iterations relied on atomic orders weaker than seq_cst"),
            std::string::npos)
      << caveats[0];
  EXPECT_NE(caveats[0].find("plain (non-atomic) memory is not seen"), std::string::npos) << caveats[0];
  EXPECT_NE(caveats[0].find("build the test with heddle-c++"), std::string::npos) << caveats[0];
  EXPECT_EQ(relaxed.verdict(), "passed: explored all " + std::to_string(relaxed.stats.schedules) +
                                   " executions, verified under RC11 for atomics only");

  const heddle::result seq_cst =
      heddle::explore(o, [] { double_checked(std::memory_order_seq_cst, std::memory_order_seq_cst); });
  ASSERT_FALSE(seq_cst.bug) << seq_cst.report;
  EXPECT_EQ(seq_cst.stats.plain_unseen_iterations, 0u);
  EXPECT_TRUE(seq_cst.stats.caveats().empty()) << testing::PrintToString(seq_cst.stats.caveats());
  EXPECT_EQ(seq_cst.verdict(), "passed: explored all " + std::to_string(seq_cst.stats.schedules) +
                                   " executions, verified under RC11");
}

// Under rc11 heddle checks RC11's SC axiom on a graph of the seq_cst
// accesses and fences, with RC11's scb between seq_cst accesses of two
// threads: hb|loc, or sb|≠loc;hb;sb|≠loc, where the events of another
// location after the first access and before the second are those heddle
// sees. A plain access it does not see may be one, so where only accesses
// of the first's location followed it before the happens-before left its
// thread (or only accesses of the second's location came between the
// happens-before's arrival and the second), heddle takes the edge, which may
// hide executions RC11 allows (docs/memory-model.md, "What is
// approximated"). A pass there says so, and nowhere else.
TEST(verdict, rc11_pass_that_ordered_seq_cst_accesses_through_one_location_says_so) {
  heddle::options o = quiet("dpor");
  o.memory_model = heddle::memory_model::rc11;
  // `a=y; x=1 (seq_cst) || x=2 (seq_cst); y=1`, y of orders st and ld:
  // x=2 is followed by y=1, of another location, so scb is exact.
  const auto mixed_test = [](std::memory_order y_store, std::memory_order y_load) {
    return [y_store, y_load] {
      heddle::atomic<int> x{0}, y{0};
      int a = -1;
      heddle::thread t([&] {
        a = y.load(y_load);
        x.store(1, std::memory_order_seq_cst);
      });
      x.store(2, std::memory_order_seq_cst);
      y.store(1, y_store);
      t.join();
      HEDDLE_ASSERT(a == 0 || a == 1);
    };
  };
  for (const auto& [st, ld] : {std::pair{std::memory_order_relaxed, std::memory_order_relaxed},
                               std::pair{std::memory_order_release, std::memory_order_acquire}}) {
    const heddle::result r = heddle::explore(o, mixed_test(st, ld));
    ASSERT_FALSE(r.bug) << r.report;
    EXPECT_TRUE(r.stats.exhausted);
    EXPECT_EQ(r.stats.sc_in_run_order_iterations, 0u);
    // Weaker orders, and this test is not built with heddle-c++: "for atomics only".
    EXPECT_EQ(r.verdict(), "passed: explored all " + std::to_string(r.stats.schedules) +
                               " executions, verified under RC11 for atomics only");
  }
  const heddle::result seq_cst = heddle::explore(o, mixed_test(std::memory_order_seq_cst, std::memory_order_seq_cst));
  ASSERT_FALSE(seq_cst.bug) << seq_cst.report;
  EXPECT_EQ(seq_cst.stats.sc_in_run_order_iterations, 0u);
  EXPECT_EQ(seq_cst.verdict(), "passed: explored all " + std::to_string(seq_cst.stats.schedules) +
                                   " executions, verified under RC11");

  // `x=1 (seq_cst); [z=1;] x=2 (release) || a=x (acquire); b=y (seq_cst)
  // || y=1 (seq_cst); c=x (seq_cst)`: with a=2, x=1 happens before b, but
  // only x=2, of x too, follows x=1 before the release. Without z=1, RC11
  // does not order x=1 before b (a=2, b=0, c=0 is allowed), unless a plain
  // access came between; heddle orders them, and says so. With z=1 between,
  // it orders them as RC11 does, and says nothing.
  const auto same_location_after = [](bool other_between) {
    return [other_between] {
      heddle::atomic<int> x{0}, y{0}, z{0};
      heddle::thread t([&] {
        x.store(1, std::memory_order_seq_cst);
        if (other_between) z.store(1, std::memory_order_relaxed);
        x.store(2, std::memory_order_release);
      });
      heddle::thread u([&] {
        (void)x.load(std::memory_order_acquire);
        (void)y.load(std::memory_order_seq_cst);
      });
      y.store(1, std::memory_order_seq_cst);
      (void)x.load(std::memory_order_seq_cst);
      t.join();
      u.join();
    };
  };
  const heddle::result same = heddle::explore(o, same_location_after(false));
  ASSERT_FALSE(same.bug) << same.report;
  EXPECT_TRUE(same.stats.exhausted);
  EXPECT_GT(same.stats.sc_in_run_order_iterations, 0u);
  EXPECT_LT(same.stats.sc_in_run_order_iterations, same.stats.iterations);
  EXPECT_EQ(same.verdict(), "passed: explored all " + std::to_string(same.stats.schedules) +
                                " executions, verified under RC11 for atomics only, with seq_cst accesses ordered "
                                "by happens-before");
  EXPECT_TRUE(mentions(same.stats.caveats(), "took happens-before between seq_cst accesses of two threads as part of "
                                             "RC11's seq_cst order (psc) where, in a thread, only accesses of one "
                                             "location"))
      << testing::PrintToString(same.stats.caveats());
  EXPECT_TRUE(mentions(same.stats.caveats(), "executions RC11 allows may be missing"))
      << testing::PrintToString(same.stats.caveats());
  const heddle::result other = heddle::explore(o, same_location_after(true));
  ASSERT_FALSE(other.bug) << other.report;
  EXPECT_EQ(other.stats.sc_in_run_order_iterations, 0u);

  // `y=1 (seq_cst); x=1 (release) || a=x (acquire); [z;] b=x (seq_cst)`:
  // with a=1, y=1 happens before b through a, of b's location; RC11 orders
  // y=1 before b only if an access of another location came between a and
  // b. Without the load of z, heddle orders them and says so.
  const auto same_location_before = [](bool other_between) {
    return [other_between] {
      heddle::atomic<int> x{0}, y{0}, z{0};
      heddle::thread t([&] {
        y.store(1, std::memory_order_seq_cst);
        x.store(1, std::memory_order_release);
      });
      (void)x.load(std::memory_order_acquire);
      if (other_between) (void)z.load(std::memory_order_relaxed);
      (void)x.load(std::memory_order_seq_cst);
      t.join();
    };
  };
  const heddle::result before = heddle::explore(o, same_location_before(false));
  ASSERT_FALSE(before.bug) << before.report;
  EXPECT_GT(before.stats.sc_in_run_order_iterations, 0u);
  const heddle::result between = heddle::explore(o, same_location_before(true));
  ASSERT_FALSE(between.bug) << between.report;
  EXPECT_EQ(between.stats.sc_in_run_order_iterations, 0u);
  // With a=1, the load of z, then another acquire of x (which can only read
  // x=1 again): what it brings was already there before the load of z, so
  // y=1 is psc-before b as RC11 has it, and nothing is said.
  const heddle::result again = heddle::explore(o, [] {
    heddle::atomic<int> x{0}, y{0}, z{0};
    heddle::thread t([&] {
      y.store(1, std::memory_order_seq_cst);
      x.store(1, std::memory_order_release);
    });
    if (x.load(std::memory_order_acquire) == 1) {
      (void)z.load(std::memory_order_relaxed);
      (void)x.load(std::memory_order_acquire);
      (void)x.load(std::memory_order_seq_cst);
    }
    t.join();
  });
  ASSERT_FALSE(again.bug) << again.report;
  EXPECT_EQ(again.stats.sc_in_run_order_iterations, 0u);

  // One seq_cst access of each location among relaxed ones, no seq_cst
  // fence: psc relates them only through hb, which the run follows, so
  // nothing is hidden and nothing is said. x=1 (seq_cst) beside the relaxed
  // stores and loads of y.
  const heddle::result one_each = heddle::explore(o, [] {
    heddle::atomic<int> x{0}, y{0};
    heddle::thread t([&] {
      y.store(1, std::memory_order_relaxed);
      x.store(1, std::memory_order_seq_cst);
    });
    (void)y.load(std::memory_order_relaxed);
    y.store(2, std::memory_order_relaxed);
    t.join();
  });
  ASSERT_FALSE(one_each.bug) << one_each.report;
  EXPECT_EQ(one_each.stats.sc_in_run_order_iterations, 0u);
  EXPECT_EQ(one_each.verdict(), "passed: explored all " + std::to_string(one_each.stats.schedules) +
                                    " executions, verified under RC11 for atomics only");
  // The same with a seq_cst fence after the seq_cst store: the seq_cst
  // store that ran before the iteration's first fence is a node of the psc
  // graph like any other (weak_memory.hpp, "The prefix"), and the seq_cst
  // accesses are one thread's: nothing said.
  const heddle::result sc_fenced = heddle::explore(o, [] {
    heddle::atomic<int> x{0}, y{0};
    heddle::thread t([&] {
      x.store(1, std::memory_order_seq_cst);
      heddle::atomic_thread_fence(std::memory_order_seq_cst);
      (void)y.load(std::memory_order_relaxed);
    });
    y.store(1, std::memory_order_relaxed);
    t.join();
  });
  ASSERT_FALSE(sc_fenced.bug) << sc_fenced.report;
  EXPECT_EQ(sc_fenced.stats.sc_in_run_order_iterations, 0u);
  // The fence first: the seq_cst store, of one thread, is a node of the psc
  // graph, ordered against the fence as RC11 orders it
  // (litmus.a_seq_cst_access_between_two_sc_fences_does_not_order_them):
  // nothing is hidden, nothing said.
  const auto fence_first = [](bool main_too) {
    return [main_too] {
      heddle::atomic<int> x{0}, y{0};
      heddle::thread t([&] {
        heddle::atomic_thread_fence(std::memory_order_seq_cst);
        x.store(1, std::memory_order_seq_cst);
        (void)y.load(std::memory_order_relaxed);
      });
      heddle::atomic_thread_fence(std::memory_order_seq_cst);
      if (main_too) (void)x.load(std::memory_order_seq_cst);
      y.store(1, std::memory_order_relaxed);
      t.join();
    };
  };
  const heddle::result graphed = heddle::explore(o, fence_first(false));
  ASSERT_FALSE(graphed.bug) << graphed.report;
  EXPECT_TRUE(graphed.stats.exhausted);
  EXPECT_EQ(graphed.stats.sc_in_run_order_iterations, 0u);
  EXPECT_EQ(graphed.verdict(), "passed: explored all " + std::to_string(graphed.stats.schedules) +
                                   " executions, verified under RC11 for atomics only");
  // seq_cst accesses of two threads among them: scb between them is exact
  // (each is followed by an access of another location), nothing said.
  const heddle::result two_threads = heddle::explore(o, fence_first(true));
  ASSERT_FALSE(two_threads.bug) << two_threads.report;
  EXPECT_EQ(two_threads.stats.sc_in_run_order_iterations, 0u);

  // A fence among relaxed accesses: RC11's fence order is checked on the graph.
  const heddle::result fenced = heddle::explore(o, [] {
    heddle::atomic<int> x{0};
    heddle::thread t([&] { x.store(1, std::memory_order_relaxed); });
    heddle::atomic_thread_fence(std::memory_order_seq_cst);
    (void)x.load(std::memory_order_relaxed);
    t.join();
  });
  EXPECT_EQ(fenced.stats.sc_in_run_order_iterations, 0u);
}

TEST(verdict, seq_cst_double_checked_locking_is_verified_without_qualification) {
  const heddle::result r =
      heddle::explore(quiet("dpor"), [] { double_checked(std::memory_order_seq_cst, std::memory_order_seq_cst); });
  ASSERT_FALSE(r.bug);
  EXPECT_EQ(r.stats.weak_order_iterations, 0u);
  EXPECT_TRUE(r.stats.caveats().empty()) << testing::PrintToString(r.stats.caveats());
  EXPECT_NE(r.verdict().find("(verified)"), std::string::npos) << r.verdict();
}

TEST(verdict, iterations_cut_at_max_steps_are_counted_and_the_verdict_says_so) {
  auto o = quiet("random", 5);
  o.max_steps = 50;
  const heddle::result r = heddle::explore(o, [] {
    for (int i = 0; i < 100; ++i) heddle::this_thread::yield();
  });
  ASSERT_FALSE(r.bug);
  EXPECT_EQ(r.stats.max_steps_hits, 5u);
  EXPECT_EQ(r.stats.max_steps, 50u);
  EXPECT_EQ(r.verdict(), "passed 5 iterations, all cut at --max-steps 50: nothing after step 50 was checked");
  EXPECT_TRUE(mentions(r.stats.caveats(), "all 5 iterations ended at --max-steps 50")) << testing::PrintToString(r.stats.caveats());
  EXPECT_TRUE(mentions(r.stats.caveats(), "--max-steps 500")) << "the caveat says which flag to raise";
}

// One branch of a choice runs past max_steps: dfs runs out of schedules, but
// what the cut one did after the cut was never checked.
void long_or_short() {
  const int n = heddle::choose_bool() ? 100 : 1;
  for (int i = 0; i < n; ++i) heddle::this_thread::yield();
}

TEST(verdict, a_search_that_ran_out_with_a_cut_schedule_is_exhausted_but_not_verified) {
  auto o = quiet("dfs");
  o.max_steps = 30;
  const heddle::result r = heddle::explore(o, long_or_short);
  ASSERT_FALSE(r.bug);
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_EQ(r.stats.max_steps_hits, 1u);
  EXPECT_EQ(r.verdict(), "passed, cut: explored all 2 schedules, 1 of them cut at --max-steps 30 (not verified)");
  EXPECT_FALSE(heddle::detail::verified(r.stats));
  const nlohmann::json record = heddle::detail::test_record("t", o, r);
  EXPECT_TRUE(record["stats"]["exhausted"].get<bool>());
  EXPECT_FALSE(record["verified"].get<bool>()) << record.dump();
}

TEST(verdict, a_search_that_ran_out_with_nothing_cut_is_verified) {
  const auto o = quiet("dfs");
  const heddle::result r = heddle::explore(o, long_or_short);
  ASSERT_FALSE(r.bug);
  EXPECT_EQ(r.verdict(), "passed: explored all 2 schedules (verified)");
  EXPECT_TRUE(heddle::detail::verified(r.stats));
  EXPECT_TRUE(heddle::detail::test_record("t", o, r)["verified"].get<bool>());
}

TEST(verdict, a_sampled_run_is_never_verified) {
  const auto o = quiet("random", 50);
  const heddle::result r = heddle::explore(o, long_or_short);
  ASSERT_FALSE(r.bug);
  EXPECT_FALSE(heddle::detail::test_record("t", o, r)["verified"].get<bool>());
}

TEST(verdict, some_iterations_cut_make_a_qualified_pass) {
  auto o = quiet("random", 40);
  o.max_steps = 30;
  const heddle::result r = heddle::explore(o, [] {
    const int n = heddle::choose_bool() ? 100 : 1;
    for (int i = 0; i < n; ++i) heddle::this_thread::yield();
  });
  ASSERT_FALSE(r.bug);
  ASSERT_GT(r.stats.max_steps_hits, 0u);
  ASSERT_LT(r.stats.max_steps_hits, 40u);
  EXPECT_EQ(r.verdict().rfind("passed, cut: no bug in 40 iterations", 0), 0u) << r.verdict();
}

TEST(verdict, bounded_spurious_events_are_named) {
  const heddle::result r = heddle::explore(quiet("dpor", 100000), [] {
    heddle::atomic<int> counter{0};
    auto add = [&] {
      int seen = counter.load();
      while (!counter.compare_exchange_weak(seen, seen + 1)) {
      }
    };
    heddle::thread t(add);
    add();
    t.join();
    HEDDLE_ASSERT(counter.load() == 2);
  });
  ASSERT_FALSE(r.bug);
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_GT(r.stats.bounded_choices, 0u);
  EXPECT_NE(r.verdict().find("spurious events once per call site"), std::string::npos) << r.verdict();
}

TEST(verdict, a_plain_pass_says_passed) {
  const heddle::result r = heddle::explore(quiet("random", 3), [] {});
  EXPECT_EQ(r.verdict(), "passed: no bug in 3 iterations");
  EXPECT_TRUE(r.stats.caveats().empty());
}
