// The systematic strategies, dfs, dfs:pb=K and dpor: exact schedule counts on
// programs whose counts have a closed form, exhaustion ending the run by itself,
// determinism, a nondeterministic program reported as such, bad specs, and dpor
// finding every bug of the bug suite that dfs finds.
//
// How the engine counts: operation 1 (the body) is chosen at step 0; an
// operation created by heddle::thread starts at a `start` point; every
// this_thread::yield, atomic access and lock call is one point; join is a
// point, and if the joined operation has not finished the joiner blocks and is
// chosen once more after it finishes. A schedule is one complete iteration.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "heddle/heddle.hpp"
#include "programs.hpp"

namespace {

heddle::options exact(std::string strategy, std::uint64_t iterations = 1'000'000) {
  return {.iterations = iterations,
          .strategy = std::move(strategy),
          .spurious_wakeups = false,
          .spurious_cas_failures = false,
          .print_report = false,
          .out = ""};
}

std::uint64_t binomial(std::uint64_t n, std::uint64_t k) {
  if (k > n) return 0;
  std::uint64_t r = 1;
  for (std::uint64_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

// Operation 1 starts a thread and detaches it; both then yield k times.
void yielders(int k) {
  heddle::thread t([k] {
    for (int i = 0; i < k; ++i) heddle::this_thread::yield();
  });
  t.detach();
  for (int i = 0; i < k; ++i) heddle::this_thread::yield();
}

// Operation 1's start step (step 0) creates the thread; after it, operation 1
// has k steps (one per yield; it finishes in the last) and the thread k+1
// (start, then one per yield). Every interleaving of the two chains is one
// schedule: C(2k+1, k).
std::uint64_t yielders_schedules(int k) { return binomial(2 * k + 1, k); }

// The same interleavings by preemption count p. Write a schedule as X: the
// start step of operation 1, then the interleaving, so X has m = k+1 steps of
// operation 1 (first) and m of the thread. A switch after an operation's last
// step is not a preemption (it has finished); every other switch is. Whichever
// operation ends first, that makes p = R - 2 for X with R runs. Sequences
// of m steps of each kind that start with operation 1 and have R runs:
// R = 2r gives C(m-1, r-1)^2, R = 2r+1 gives C(m-1, r) C(m-1, r-1).
std::uint64_t yielders_with_preemptions(int k, std::uint64_t p) {
  const std::uint64_t m = k + 1;
  const std::uint64_t runs = p + 2;
  const std::uint64_t r = runs / 2;
  if (runs % 2 == 0) return binomial(m - 1, r - 1) * binomial(m - 1, r - 1);
  return binomial(m - 1, r) * binomial(m - 1, r - 1);
}

}  // namespace

TEST(strategy_systematic, binomial_formulas_hold_for_small_k) {
  // The closed form by preemptions adds up to the total, and matches a hand
  // count for k = 1 (operation 1: S, Y; thread: s, y): S Y s y has none;
  // S s y Y one (s preempts operation 1, Y follows the thread's end); S s Y y
  // two (s preempts operation 1, Y preempts the thread, y follows Y's end).
  for (int k = 0; k <= 5; ++k) {
    std::uint64_t sum = 0;
    for (std::uint64_t p = 0; p <= 2 * static_cast<std::uint64_t>(k); ++p) sum += yielders_with_preemptions(k, p);
    EXPECT_EQ(sum, yielders_schedules(k)) << "k = " << k;
  }
  EXPECT_EQ(yielders_with_preemptions(1, 0), 1u);
  EXPECT_EQ(yielders_with_preemptions(1, 1), 1u);
  EXPECT_EQ(yielders_with_preemptions(1, 2), 1u);
}

TEST(strategy_systematic, dfs_explores_every_interleaving_of_two_yielding_operations) {
  // k = 0..4: C(1, 0) = 1, C(3, 1) = 3, C(5, 2) = 10, C(7, 3) = 35, C(9, 4) = 126.
  const std::uint64_t expected[] = {1, 3, 10, 35, 126};
  for (int k = 0; k <= 4; ++k) {
    const auto r = heddle::explore(exact("dfs"), [k] { yielders(k); });
    ASSERT_FALSE(r.bug) << r.report;
    EXPECT_TRUE(r.stats.exhausted) << "k = " << k;
    EXPECT_EQ(r.stats.schedules, expected[k]) << "k = " << k;
    EXPECT_EQ(r.stats.schedules, yielders_schedules(k)) << "k = " << k;
    EXPECT_EQ(r.stats.iterations, expected[k]) << "every dfs iteration is one schedule";
  }
}

TEST(strategy_systematic, dfs_explores_every_value_of_a_choice_loop) {
  // k = 3 choices of choose_int(4), nothing else concurrent: 4^3 = 64 leaves.
  std::vector<std::uint64_t> seen;
  const auto r = heddle::explore(exact("dfs"), [&seen] {
    std::uint64_t code = 0;
    for (int i = 0; i < 3; ++i) code = code * 4 + heddle::choose_int(4);
    seen.push_back(code);
  });
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_EQ(r.stats.schedules, 64u);
  ASSERT_EQ(seen.size(), 64u);
  // Depth-first, first value first: the codes come in counting order.
  for (std::uint64_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i);
}

TEST(strategy_systematic, dfs_treats_a_spurious_event_as_an_ordinary_choice) {
  // Two choose_bool calls: 4 schedules; rare choices are not skipped either.
  const auto r = heddle::explore(exact("dfs"), [] {
    heddle::choose_bool();
    heddle::choose_bool();
  });
  EXPECT_EQ(r.stats.schedules, 4u);
}

TEST(strategy_systematic, dfs_does_not_reduce_independent_atomics_but_dpor_does) {
  // Operation 1 and a detached thread each store k = 3 times to their own
  // atomic (kept alive for the whole iteration): the shape of yielders(3), so
  // dfs explores C(7, 3) = 35 schedules; dpor sees that no two steps depend on
  // each other: 1 schedule.
  auto body = [] {
    static heddle::atomic<int> x{0}, y{0};
    heddle::thread t([] {
      for (int i = 1; i <= 3; ++i) y.store(i);
    });
    t.detach();
    for (int i = 1; i <= 3; ++i) x.store(i);
  };
  const auto dfs = heddle::explore(exact("dfs"), body);
  EXPECT_TRUE(dfs.stats.exhausted);
  EXPECT_EQ(dfs.stats.schedules, yielders_schedules(3));  // 35
  const auto dpor = heddle::explore(exact("dpor"), body);
  EXPECT_TRUE(dpor.stats.exhausted);
  EXPECT_EQ(dpor.stats.schedules, 1u);
}

TEST(strategy_systematic, dfs_preemption_bound_counts_each_schedule_once) {
  // k = 3 (m = 4): by preemptions 1, 3, 9, 9, 9, 3, 1 (total C(7, 3) = 35).
  // pb=c explores the schedules with at most c preemptions, each in the phase
  // of its own count, so iterations equal schedules.
  const std::uint64_t by_count[] = {1, 3, 9, 9, 9, 3, 1};
  std::uint64_t cumulative = 0;
  for (unsigned c = 0; c <= 6; ++c) {
    EXPECT_EQ(yielders_with_preemptions(3, c), by_count[c]);
    cumulative += by_count[c];
    const auto r = heddle::explore(exact("dfs:pb=" + std::to_string(c)), [] { yielders(3); });
    EXPECT_TRUE(r.stats.exhausted) << "pb=" << c;
    EXPECT_EQ(r.stats.schedules, cumulative) << "pb=" << c;
    EXPECT_EQ(r.stats.iterations, cumulative) << "pb=" << c << ": no schedule runs twice";
  }
  const auto all = heddle::explore(exact("dfs:pb=20"), [] { yielders(3); });
  EXPECT_EQ(all.stats.schedules, 35u);
}

TEST(strategy_systematic, dfs_preemption_bound_zero_runs_each_operation_to_its_end) {
  // k = 3: without preemptions the only schedule runs operation 1 to its
  // join, then the thread: the thread's steps all come last.
  std::vector<int> order;
  const auto r = heddle::explore(exact("dfs:pb=0"), [&order] {
    order.clear();
    heddle::thread t([&order] {
      for (int i = 0; i < 3; ++i) {
        order.push_back(2);
        heddle::this_thread::yield();
      }
    });
    for (int i = 0; i < 3; ++i) {
      order.push_back(1);
      heddle::this_thread::yield();
    }
    t.join();
  });
  EXPECT_EQ(r.stats.schedules, 1u);
  EXPECT_EQ(order, (std::vector<int>{1, 1, 1, 2, 2, 2}));
}

namespace {

// Each of `threads` threads writes its own shared variable twice; operation 1 joins them.
void independent_writers(int threads) {
  std::vector<std::unique_ptr<heddle::shared<int>>> vars;
  for (int i = 0; i < threads; ++i) vars.push_back(std::make_unique<heddle::shared<int>>(0));
  std::vector<heddle::thread> ts;
  for (int i = 0; i < threads; ++i)
    ts.emplace_back([v = vars[i].get()] {
      *v = 1;
      *v = 2;
    });
  for (auto& t : ts) t.join();
}

// Three threads each increment a mutex-protected counter twice.
void locked_counter() {
  heddle::mutex m;
  int counter = 0;
  auto work = [&] {
    for (int i = 0; i < 2; ++i) {
      std::lock_guard<heddle::mutex> guard(m);
      ++counter;
    }
  };
  heddle::thread a(work), b(work), c(work);
  a.join();
  b.join();
  c.join();
  HEDDLE_ASSERT(counter == 6);
}

}  // namespace

TEST(strategy_systematic, dpor_explores_one_schedule_for_independent_writes) {
  for (int threads : {2, 3}) {
    const auto r = heddle::explore(exact("dpor"), [threads] { independent_writers(threads); });
    ASSERT_FALSE(r.bug) << r.report;
    EXPECT_TRUE(r.stats.exhausted);
    EXPECT_EQ(r.stats.schedules, 1u) << threads << " threads";
  }
}

TEST(strategy_systematic, dpor_explores_each_order_of_critical_sections_once) {
  // Six critical sections, two per thread in program order: 6!/(2!2!2!) = 90.
  const auto r = heddle::explore(exact("dpor"), locked_counter);
  ASSERT_FALSE(r.bug) << r.report;
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_EQ(r.stats.schedules, 90u);
  // Sleep-set-blocked iterations are run but not counted.
  EXPECT_GE(r.stats.iterations, r.stats.schedules);
}

TEST(strategy_systematic, dpor_explores_every_order_of_dependent_writes) {
  // Two threads each write one shared variable once: 2 orders. With a read
  // by each as well (x = x + 1 as read then write), the lost update is found.
  const auto orders = heddle::explore(exact("dpor"), [] {
    heddle::shared<int> x{0};
    heddle::thread a([&x] { x = 1; }), b([&x] { x = 2; });
    a.join();
    b.join();
  });
  EXPECT_EQ(orders.stats.schedules, 2u);
  const auto lost = heddle::explore(exact("dpor"), [] {
    heddle::shared<int> x{0};
    heddle::thread a([&x] { x++; }), b([&x] { x++; });
    a.join();
    b.join();
    HEDDLE_ASSERT(x.load() == 2);
  });
  ASSERT_TRUE(lost.bug);
  EXPECT_EQ(lost.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(lost.bug->message, "assertion failed: x.load() == 2");
}

TEST(strategy_systematic, dpor_branches_on_every_data_value) {
  // Three choose_int(3) in one operation: 27 schedules, as dfs.
  const auto r = heddle::explore(exact("dpor"), [] {
    for (int i = 0; i < 3; ++i) heddle::choose_int(3);
  });
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_EQ(r.stats.schedules, 27u);
}

TEST(strategy_systematic, exhausted_runs_stop_by_themselves) {
  for (const char* spec : {"dfs", "dfs:pb=1", "dpor"}) {
    const auto r = heddle::explore(exact(spec, 1'000'000), [] { yielders(4); });
    EXPECT_TRUE(r.stats.exhausted) << spec;
    EXPECT_LT(r.stats.iterations, 1'000'000u) << spec;
    EXPECT_GT(r.stats.schedules, 0u) << spec;
    EXPECT_FALSE(r.divergence) << spec;
  }
  // A budget too small to finish is not a verdict.
  const auto partial = heddle::explore(exact("dfs", 10), [] { yielders(4); });
  EXPECT_FALSE(partial.stats.exhausted);
  EXPECT_EQ(partial.stats.iterations, 10u);
}

TEST(strategy_systematic, same_program_gives_the_same_exploration_order) {
  for (const char* spec : {"dfs", "dfs:pb=2", "dpor"}) {
    auto record = [spec](std::uint64_t seed) {
      std::vector<std::string> log;
      auto o = exact(spec);
      o.seed = seed;
      heddle::explore(o, [&log] {
        std::string order;
        heddle::mutex m;
        auto work = [&](char name) {
          std::lock_guard<heddle::mutex> guard(m);
          order += name;
        };
        heddle::thread a([&] { work('a'); }), b([&] { work('b'); });
        work('m');
        a.join();
        b.join();
        log.push_back(order);
      });
      return log;
    };
    const auto first = record(1);
    EXPECT_EQ(first, record(1)) << spec;
    EXPECT_EQ(first, record(2)) << spec << ": the search does not depend on the seed";
    EXPECT_GE(first.size(), 6u) << spec << ": the 3! orders of three critical sections";
  }
}

TEST(strategy_systematic, a_nondeterministic_program_ends_the_run_with_a_divergence) {
  for (const char* spec : {"dfs", "dpor"}) {
    int runs = 0;
    const auto r = heddle::explore(exact(spec), [&runs] {
      // Leaks state across iterations: the second run creates one more thread.
      const int n = ++runs == 1 ? 1 : 2;
      std::vector<heddle::thread> ts;
      static heddle::atomic<int> a{0};  // racing stores: more than one schedule even for dpor
      for (int i = 0; i < n; ++i) ts.emplace_back([] { a.store(1); });
      a.store(2);
      for (auto& t : ts) t.join();
    });
    ASSERT_TRUE(r.divergence) << spec;
    EXPECT_NE(r.divergence->find("not deterministic"), std::string::npos) << *r.divergence;
    EXPECT_NE(r.divergence->find("step "), std::string::npos) << *r.divergence;
    EXPECT_FALSE(r.stats.exhausted) << spec;
  }
}

TEST(strategy_systematic, bad_specs_are_usage_errors) {
  for (const char* spec : {"dfs:pb=", "dfs:pb=x", "dfs:x=1", "dfs:pb=21", "dfs:3", "dpor:3", "dpor(random)"}) {
    EXPECT_THROW(heddle::explore(exact(spec), [] {}), heddle::usage_error) << spec;
  }
  try {
    heddle::explore(exact("dfs:x=1"), [] {});
  } catch (const heddle::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("pb=K"), std::string::npos) << e.what();
  }
  for (const char* spec : {"dfs", "dfs:pb=0", "dfs:pb=20", "dpor"})
    EXPECT_NO_THROW(heddle::explore(exact(spec), [] {})) << spec;
}

TEST(strategy_systematic, dpor_finds_every_bug_of_the_suite_that_dfs_finds) {
  // Budget: 20,000 iterations each. A program dfs does not find a bug in within
  // the budget is skipped (printed below); dpor must find every other one.
  constexpr std::uint64_t budget = 20'000;
  std::string skipped;
  int checked = 0;
  for (const heddle_bugs::program& p : heddle_bugs::all_programs()) {
    const auto dfs = heddle::explore(heddle_bugs::options_for(p, "dfs", budget), p.buggy, heddle_bugs::identity_of(p));
    if (!dfs.bug) {
      skipped += std::string(skipped.empty() ? "" : ", ") + std::string(p.name);
      continue;
    }
    ++checked;
    const auto dpor = heddle::explore(heddle_bugs::options_for(p, "dpor", budget), p.buggy, heddle_bugs::identity_of(p));
    ASSERT_TRUE(dpor.bug) << p.name << ": dfs finds it in " << dfs.stats.iterations << " iterations, dpor explored "
                          << dpor.stats.schedules << " schedules in " << dpor.stats.iterations << " iterations"
                          << (dpor.stats.exhausted ? " and says it is exhausted" : "");
    EXPECT_EQ(dpor.bug->kind, p.kind) << p.name;
    EXPECT_NE(dpor.bug->message.find(p.message), std::string::npos) << p.name << ": " << dpor.bug->message;
  }
  EXPECT_GT(checked, 0);
  std::printf("[ info ] dfs finds no bug within %llu iterations in: %s\n", static_cast<unsigned long long>(budget),
              skipped.empty() ? "(none)" : skipped.c_str());
}
