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
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <set>
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

// A waiter that yields until a flag is set, created before the thread that
// sets it. dpor used to keep running the waiter after its yield, so the
// first schedule spun to max_steps with the setter never started: no step of
// the setter, no race, and the search ended there having checked nothing.
// An operation about to yield now hands over to another awake one first.
void yielding_wait_for_publish(bool flag_first) {
  heddle::atomic<int> data{0};
  heddle::atomic<int> flag{0};
  heddle::thread waiter([&] {
    while (flag.load() == 0) heddle::this_thread::yield();
    HEDDLE_ASSERT(data.load() == 42);
  });
  heddle::thread setter([&] {
    if (flag_first) {
      flag.store(1);
      data.store(42);
    } else {
      data.store(42);
      flag.store(1);
    }
  });
  waiter.join();
  setter.join();
}

TEST(strategy_systematic, dpor_lets_the_operation_a_yielding_wait_loop_waits_for_run) {
  heddle::options o = exact("dpor", 2'000);
  o.max_steps = 500;
  const auto buggy = heddle::explore(o, [] { yielding_wait_for_publish(true); });
  ASSERT_TRUE(buggy.bug) << "explored " << buggy.stats.iterations << " iterations, " << buggy.stats.max_steps_hits
                         << " cut at max_steps";
  EXPECT_EQ(buggy.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(buggy.bug->message, "assertion failed: data.load() == 42");
  EXPECT_EQ(buggy.stats.max_steps_hits, 0u);
  // The fixed twin: no bug, and no schedule spins to max_steps: where every
  // other operation is asleep, the waiter's repeated try ends the iteration
  // as sleep-set blocked (dpor.cpp, "Wait loops").
  const auto fixed = heddle::explore(o, [] { yielding_wait_for_publish(false); });
  EXPECT_FALSE(fixed.bug) << fixed.bug->message;
  EXPECT_TRUE(fixed.stats.exhausted) << fixed.verdict();
  EXPECT_EQ(fixed.stats.max_steps_hits, 0u) << fixed.verdict();
}

// A waiter and a setter that writes three other objects before the flag.
// Each reversal of the waiter's read of the flag with the write of it adds
// one more failed try before the write; the search ends only because a try
// that repeats the one before, with nothing it read written in between, is
// held back until something it reads changes.
void yielding_wait_behind_other_writes(bool flag_first) {
  heddle::atomic<int> a{0}, b{0}, c{0};
  heddle::atomic<int> flag{0};
  heddle::thread waiter([&] {
    while (flag.load() == 0) heddle::this_thread::yield();
    HEDDLE_ASSERT(c.load() == 1);
  });
  heddle::thread setter([&] {
    a.store(1);
    b.store(1);
    if (flag_first) flag.store(1);
    c.store(1);
    if (!flag_first) flag.store(1);
  });
  waiter.join();
  setter.join();
}

TEST(strategy_systematic, dpor_ends_its_search_of_a_wait_loop_by_holding_back_repeated_tries) {
  heddle::options o = exact("dpor", 20'000);
  const auto fixed = heddle::explore(o, [] { yielding_wait_behind_other_writes(false); });
  EXPECT_FALSE(fixed.bug) << fixed.bug->message;
  ASSERT_TRUE(fixed.stats.exhausted) << fixed.verdict();
  EXPECT_EQ(fixed.stats.max_steps_hits, 0u);
  EXPECT_GT(fixed.stats.held_wait_iterations, 0u);
  EXPECT_EQ(fixed.verdict(), fmt::format("passed: explored all {} schedules (verified, assuming a wait loop's try "
                                         "that saw nothing change has no effect)",
                                         fixed.stats.schedules));
  const std::vector<std::string> caveats = fixed.stats.caveats();
  ASSERT_EQ(caveats.size(), 1u);
  EXPECT_NE(caveats[0].find("dpor assumes such a try has no effect but its reads"), std::string::npos) << caveats[0];
  // It names the common loops that break the assumption, and what to do.
  EXPECT_NE(caveats[0].find("(libstdc++'s counting_semaphore, latch and atomic::wait do) was explored giving up only "
                            "where nothing else could run: run the default strategy on it too"),
            std::string::npos)
      << caveats[0];
  const auto buggy = heddle::explore(o, [] { yielding_wait_behind_other_writes(true); });
  ASSERT_TRUE(buggy.bug) << buggy.verdict();
  EXPECT_EQ(buggy.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(buggy.bug->message, "assertion failed: c.load() == 1");
}

TEST(strategy_systematic, dpor_places_one_write_among_many_reads) {
  // A thread reads an atomic n = 300 times while another writes it once: the
  // reads commute with each other, so the classes are the n+1 places of the
  // write among the reads. Traces of ~300 steps, 301 schedules: quick.
  constexpr int n = 300;
  const auto r = heddle::explore(exact("dpor"), [] {
    static heddle::atomic<int> x{0};
    x.store(0);
    heddle::thread reader([] {
      for (int i = 0; i < n; ++i) x.load();
    });
    heddle::thread writer([] { x.store(1); });
    reader.join();
    writer.join();
  });
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_EQ(r.stats.schedules, static_cast<std::uint64_t>(n + 1));
  EXPECT_LT(r.stats.elapsed, std::chrono::seconds(10));
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
  // Budget: 20,000 iterations each, with the suite's options and again without
  // spurious events (where no retry loop hides a missing schedule). A program
  // dfs does not find a bug in within the budget is skipped (printed below);
  // dpor must find every other one.
  constexpr std::uint64_t budget = 20'000;
  for (bool spurious : {true, false}) {
    std::string skipped;
    int checked = 0;
    for (const heddle_bugs::program& p : heddle_bugs::all_programs()) {
      auto options = [&](const char* spec) {
        auto o = heddle_bugs::options_for(p, spec, budget);
        o.spurious_wakeups = o.spurious_cas_failures = spurious;
        return o;
      };
      const auto dfs = heddle::explore(options("dfs"), p.buggy, heddle_bugs::identity_of(p));
      if (!dfs.bug) {
        skipped += std::string(skipped.empty() ? "" : ", ") + std::string(p.name);
        continue;
      }
      ++checked;
      const auto dpor = heddle::explore(options("dpor"), p.buggy, heddle_bugs::identity_of(p));
      ASSERT_TRUE(dpor.bug) << p.name << (spurious ? "" : " without spurious events") << ": dfs finds it in "
                            << dfs.stats.iterations << " iterations, dpor explored " << dpor.stats.schedules
                            << " schedules in " << dpor.stats.iterations << " iterations"
                            << (dpor.stats.exhausted ? " and says it is exhausted" : "");
      EXPECT_EQ(dpor.bug->kind, p.kind) << p.name;
      EXPECT_NE(dpor.bug->message.find(p.message), std::string::npos) << p.name << ": " << dpor.bug->message;
    }
    EXPECT_GT(checked, 10);
    std::printf("[ info ] %s spurious events, dfs finds no bug within %llu iterations in: %s\n",
                spurious ? "with" : "without", static_cast<unsigned long long>(budget),
                skipped.empty() ? "(none)" : skipped.c_str());
  }
}

namespace {

// Every outcome (a string the body records) of `body` under `spec`, exhaustively.
std::set<std::string> outcomes(const char* spec, void (*body)(std::string&)) {
  std::set<std::string> seen;
  auto o = exact(spec);
  o.stop_on_first_bug = false;
  const auto r = heddle::explore(o, [&seen, body] {
    std::string out;
    body(out);
    seen.insert(out);
  });
  EXPECT_TRUE(r.stats.exhausted) << spec << " after " << r.stats.iterations << " iterations";
  EXPECT_FALSE(r.divergence) << spec;
  return seen;
}

// Small programs on every kind of object, each recording what its operations
// saw. Each operation writes its own slot: the order of plain appends to one
// string would be state heddle does not see, which dpor rightly ignores.
void read_write_race(std::string& out) {
  heddle::shared<int> x{0};
  int a = 0, b = 0;
  heddle::thread t1([&] { a = x.load(); x = a + 1; }), t2([&] { b = x.load(); x = b + 10; });
  t1.join();
  t2.join();
  out = std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(x.load());
}
void lock_then_read(std::string& out) {
  heddle::mutex m;
  heddle::shared<int> x{0};
  std::string seen, tried;
  heddle::thread t1([&] { std::lock_guard<heddle::mutex> g(m); x = 1; x = 2; });
  heddle::thread t2([&] { std::lock_guard<heddle::mutex> g(m); seen = std::to_string(x.load()); });
  heddle::thread t3([&] {
    if (m.try_lock()) {
      tried = "t" + std::to_string(x.load());
      m.unlock();
    } else {
      tried = "f";
    }
  });
  t1.join();
  t2.join();
  t3.join();
  out = seen + "," + tried;
}
void counting_semaphore_overlap(std::string& out) {
  // One permit, and one more released by a third operation: either acquirer
  // may pass before or after the release.
  heddle::counting_semaphore<2> s(1);
  heddle::atomic<int> order{0};
  int got[2] = {0, 0};
  auto work = [&](int me) {
    s.acquire();
    got[me] = order.fetch_add(1) + 1;
  };
  heddle::thread a(work, 0), b(work, 1), c([&] {
    order.fetch_add(10);
    s.release();
  });
  a.join();
  b.join();
  c.join();
  out = std::to_string(got[0]) + "," + std::to_string(got[1]);
}
void condition_handoff(std::string& out) {
  heddle::mutex m;
  heddle::condition_variable cv;
  bool ready = false;
  heddle::shared<int> x{0};
  heddle::thread consumer([&] {
    std::unique_lock<heddle::mutex> lock(m);
    while (!ready) cv.wait(lock);
    out = "c" + std::to_string(x.load());
  });
  heddle::thread producer([&] {
    x = 1;
    {
      std::lock_guard<heddle::mutex> g(m);
      ready = true;
    }
    cv.notify_one();
    x = 2;
  });
  consumer.join();
  producer.join();
}
void cas_increments(std::string& out) {
  heddle::atomic<int> n{0};
  int seen[2] = {0, 0};
  auto work = [&](int me) {
    int v = n.load();
    while (!n.compare_exchange_strong(v, v + 1)) {}
    seen[me] = v;
  };
  heddle::thread a(work, 0), b(work, 1);
  const int mid = n.load();
  a.join();
  b.join();
  out = std::to_string(seen[0]) + std::to_string(seen[1]) + "m" + std::to_string(mid);
}
void readers_and_writer(std::string& out) {
  heddle::shared_mutex m;
  heddle::shared<int> x{0};
  int seen[2] = {0, 0};
  auto reader = [&](int me) {
    m.lock_shared();
    seen[me] = x.load();
    m.unlock_shared();
  };
  heddle::thread r1(reader, 0), r2(reader, 1), w([&] {
    m.lock();
    x = 5;
    m.unlock();
  });
  r1.join();
  r2.join();
  w.join();
  out = std::to_string(seen[0]) + std::to_string(seen[1]);
}
void join_inside_a_thread(std::string& out) {
  heddle::shared<int> x{0};
  heddle::thread outer([&] {
    heddle::thread inner([&] { x = 1; });
    inner.join();
    out = "o" + std::to_string(x.load());
  });
  heddle::thread other([&] { x = 2; });
  outer.join();
  other.join();
}

void two_consumers(std::string& out) {
  // notify_one with two waiters lets the strategy pick which one wakes.
  heddle::mutex m;
  heddle::condition_variable cv;
  std::deque<int> items;
  int got[2] = {-1, -1};
  auto consume = [&](int me) {
    std::unique_lock<heddle::mutex> lock(m);
    while (items.empty()) cv.wait(lock);
    got[me] = items.front();
    items.pop_front();
  };
  heddle::thread c1(consume, 0), c2(consume, 1);
  for (int i = 0; i < 2; ++i) {
    {
      std::lock_guard<heddle::mutex> g(m);
      items.push_back(i);
    }
    cv.notify_one();
  }
  c1.join();
  c2.join();
  out = std::to_string(got[0]) + std::to_string(got[1]);
}
void timed_lock(std::string& out) {
  // A timed lock either gets the mutex or times out, on virtual time.
  heddle::timed_mutex m;
  heddle::shared<int> x{0};
  std::string got;
  heddle::thread holder([&] {
    m.lock();
    x = 1;
    heddle::this_thread::sleep_for(std::chrono::milliseconds(5));
    x = 2;
    m.unlock();
  });
  heddle::thread waiter([&] {
    if (m.try_lock_for(std::chrono::milliseconds(1))) {
      got = "l" + std::to_string(x.load());
      m.unlock();
    } else {
      got = "t" + std::to_string(x.load());
    }
  });
  holder.join();
  waiter.join();
  out = got;
}

}  // namespace

TEST(strategy_systematic, dpor_reaches_every_outcome_dfs_reaches) {
  const std::pair<const char*, void (*)(std::string&)> programs[] = {
      {"read_write_race", read_write_race},       {"lock_then_read", lock_then_read},
      {"counting_semaphore_overlap", counting_semaphore_overlap},
      {"condition_handoff", condition_handoff},   {"cas_increments", cas_increments},
      {"readers_and_writer", readers_and_writer}, {"join_inside_a_thread", join_inside_a_thread},
      {"two_consumers", two_consumers},           {"timed_lock", timed_lock}};
  for (const auto& [name, body] : programs) {
    SCOPED_TRACE(name);
    const auto all = outcomes("dfs", body);
    EXPECT_GT(all.size(), 1u) << name;
    EXPECT_EQ(outcomes("dpor", body), all) << name;
  }
}

