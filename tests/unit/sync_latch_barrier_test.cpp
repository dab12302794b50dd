// heddle::latch and heddle::barrier: correct phases under control, known
// bugs (a latch counted too low, a barrier never completed) with their kind
// and message, misuse reports, std behaviour outside control, and reset
// across iterations.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "heddle/barrier.hpp"
#include "heddle/explore.hpp"
#include "heddle/latch.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"

namespace {

heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

TEST(sync_latch, wait_returns_only_after_every_count_down_over_2000_iterations) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::latch done(2);
    int results[2] = {0, 0};
    heddle::thread a([&] {
      results[0] = 1;
      done.count_down();
    });
    heddle::thread b([&] {
      results[1] = 2;
      done.arrive_and_wait();
    });
    done.wait();
    HEDDLE_ASSERT(done.try_wait());
    HEDDLE_ASSERT(results[0] == 1 && results[1] == 2);
    a.join();
    b.join();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_latch, a_latch_counted_too_low_is_found) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::latch done(1);  // bug: two workers
    int results = 0;
    heddle::thread a([&] {
      ++results;
      done.count_down();
    });
    heddle::thread b([&] {
      ++results;
      done.count_down();  // may also be misuse: counter already 0
    });
    done.wait();
    HEDDLE_ASSERT(results == 2);
    a.join();
    b.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_TRUE(r.bug->kind == heddle::bug_kind::assertion || r.bug->kind == heddle::bug_kind::api_misuse);
  if (r.bug->kind == heddle::bug_kind::assertion) {
    EXPECT_EQ(r.bug->message, "assertion failed: results == 2");
  } else {
    EXPECT_EQ(r.bug->message, "count_down(1) of a heddle::latch whose counter is 0 (std requires 0 <= n <= counter)");
  }
}

TEST(sync_latch, count_down_past_zero_is_misuse) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::latch l(1);
    l.count_down(2);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message, "count_down(2) of a heddle::latch whose counter is 1 (std requires 0 <= n <= counter)");
}

TEST(sync_latch, a_latch_that_never_reaches_zero_is_a_deadlock) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::latch l(2);
    heddle::thread t([&] { l.count_down(); });
    l.wait();
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for latch #"), std::string::npos) << r.bug->message;
}

TEST(sync_latch, stale_counter_from_an_unwound_iteration_does_not_poison_the_next) {
  static heddle::latch global(1);
  auto failing = heddle::explore(quiet({.iterations = 1}), [] {
    global.count_down();
    HEDDLE_ASSERT(false);
  });
  ASSERT_TRUE(failing.bug);
  auto clean = heddle::explore(quiet({.iterations = 100}), [] {
    HEDDLE_ASSERT(!global.try_wait());
    global.count_down();
    global.wait();
  });
  EXPECT_TRUE(clean) << clean.report;
}

TEST(sync_latch, outside_control_it_behaves_like_std) {
  heddle::latch l(4);
  std::atomic<int> n{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&] {
      ++n;
      l.arrive_and_wait();
    });
  l.wait();
  EXPECT_EQ(n.load(), 4);
  EXPECT_TRUE(l.try_wait());
  for (auto& t : threads) t.join();
}

TEST(sync_barrier, phases_complete_in_order_with_the_completion_in_the_last_arrival_over_2000_iterations) {
  std::set<heddle::operation_id> completers;
  auto r = heddle::explore(quiet({.iterations = 2000}), [&] {
    int phases = 0;
    int arrived = 0;
    heddle::operation_id last = 0;
    auto on_completion = [&]() noexcept {
      ++phases;
      arrived = 0;
      completers.insert(heddle::current_operation());
      last = heddle::current_operation();
    };
    heddle::barrier sync(3, on_completion);
    auto worker = [&] {
      for (int phase = 0; phase < 2; ++phase) {
        ++arrived;
        const auto before = phases;
        sync.arrive_and_wait();
        HEDDLE_ASSERT(phases == before + 1);  // released only after the completion ran
      }
    };
    heddle::thread a(worker), b(worker);
    worker();
    a.join();
    b.join();
    HEDDLE_ASSERT(phases == 2);
    HEDDLE_ASSERT(last != 0);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(completers.size(), 3u);  // each operation was the last to arrive in some phase
}

TEST(sync_barrier, completion_runs_in_the_operation_that_arrives_last) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    int arrivals = 0;
    heddle::operation_id last_arriver = 0, completer = 0;
    heddle::barrier sync(2, [&]() noexcept { completer = heddle::current_operation(); });
    auto worker = [&] {
      auto token = sync.arrive();
      // arrive() has its scheduling point before it counts, none after: this
      // count follows the order of the arrivals.
      if (++arrivals == 2) last_arriver = heddle::current_operation();
      sync.wait(std::move(token));
    };
    heddle::thread a(worker);
    worker();
    a.join();
    HEDDLE_ASSERT(completer == last_arriver);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_barrier, arrive_and_drop_lowers_the_count_of_later_phases) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    int phases = 0;
    heddle::barrier sync(2, [&]() noexcept { ++phases; });
    heddle::thread quitter([&] { sync.arrive_and_drop(); });
    sync.arrive_and_wait();  // phase 0: main + the quitter
    sync.arrive_and_wait();  // phase 1: main alone
    quitter.join();
    HEDDLE_ASSERT(phases == 2);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_barrier, a_missing_arrival_is_a_deadlock_on_the_barrier) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::barrier sync(3);
    heddle::thread t([&] { sync.arrive_and_wait(); });
    sync.arrive_and_wait();
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for barrier #"), std::string::npos) << r.bug->message;
}

TEST(sync_barrier, arriving_more_than_the_phase_expects_is_misuse) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::barrier sync(2);
    (void)sync.arrive(3);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message,
            "arrive(3) on a heddle::barrier whose current phase expects 2 more arrival(s) (std requires 0 < n "
            "<= the expected count)");
}

TEST(sync_barrier, stale_phase_from_an_unwound_iteration_does_not_poison_the_next) {
  static heddle::barrier global(2);
  auto failing = heddle::explore(quiet({.iterations = 1}), [] {
    (void)global.arrive();
    HEDDLE_ASSERT(false);
  });
  ASSERT_TRUE(failing.bug);
  auto clean = heddle::explore(quiet({.iterations = 200}), [] {
    heddle::thread t([] { global.arrive_and_wait(); });
    global.arrive_and_wait();
    t.join();
  });
  EXPECT_TRUE(clean) << clean.report;
}

TEST(sync_barrier, outside_control_it_behaves_like_std) {
  std::atomic<int> phases{0};
  heddle::barrier sync(3, [&]() noexcept { ++phases; });
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back([&] {
      for (int p = 0; p < 100; ++p) sync.arrive_and_wait();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(phases.load(), 100);
  heddle::barrier<> solo(1);
  solo.wait(solo.arrive());
}

}  // namespace
