// heddle::counting_semaphore and binary_semaphore: exclusion and bounds
// under control, release past max() as misuse, a missing release as a
// deadlock, timed acquires with both outcomes, std behaviour outside control,
// and reset across iterations.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "heddle/explore.hpp"
#include "heddle/semaphore.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"

using namespace std::chrono_literals;

namespace {

heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

TEST(sync_semaphore, binary_semaphore_excludes_over_2000_iterations) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::binary_semaphore s(1);
    int inside = 0, total = 0;
    auto worker = [&] {
      s.acquire();
      ++inside;
      heddle::this_thread::yield();
      HEDDLE_ASSERT(inside == 1);
      ++total;
      --inside;
      s.release();
    };
    heddle::thread a(worker), b(worker);
    worker();
    a.join();
    b.join();
    HEDDLE_ASSERT(total == 3);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_semaphore, counting_semaphore_admits_at_most_its_count) {
  int most = 0;
  auto r = heddle::explore(quiet({.iterations = 2000}), [&] {
    heddle::counting_semaphore<4> s(2);
    int inside = 0;
    auto worker = [&] {
      s.acquire();
      ++inside;
      heddle::this_thread::yield();
      HEDDLE_ASSERT(inside <= 2);
      most = std::max(most, inside);
      --inside;
      s.release();
    };
    heddle::thread a(worker), b(worker), c(worker);
    a.join();
    b.join();
    c.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(most, 2);
}

TEST(sync_semaphore, release_beyond_max_is_misuse) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::binary_semaphore s(1);
    s.release();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message,
            "release(1) of a heddle::counting_semaphore whose count is 1 and max() is 1 (the count would "
            "exceed max())");
  auto negative = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::counting_semaphore<8> s(0);
    s.release(-1);
  });
  ASSERT_TRUE(negative.bug);
  EXPECT_EQ(negative.bug->message,
            "release(-1) of a heddle::counting_semaphore whose count is 0 and max() is 8 (a negative update)");
}

TEST(sync_semaphore, double_release_race_is_found) {
  // Two signallers each release a binary semaphore that a consumer takes once:
  // when both release before the consumer acquires, the count would pass 1.
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::binary_semaphore s(0);
    heddle::thread a([&] { s.release(); }), b([&] { s.release(); });
    s.acquire();
    s.acquire();
    a.join();
    b.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message,
            "release(1) of a heddle::counting_semaphore whose count is 1 and max() is 1 (the count would "
            "exceed max())");
}

TEST(sync_semaphore, a_missing_release_is_a_deadlock_on_the_semaphore) {
  auto r = heddle::explore(quiet({.iterations = 100}), [] {
    heddle::counting_semaphore<2> s(1);
    heddle::thread t([&] { s.acquire(); });  // never released
    s.acquire();
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for semaphore #"), std::string::npos) << r.bug->message;
}

TEST(sync_semaphore, timed_acquire_explores_both_acquired_and_timed_out) {
  int acquired = 0, timed_out = 0;
  auto r = heddle::explore(quiet({.iterations = 1000}), [&] {
    heddle::binary_semaphore s(0);
    heddle::thread t([&] {
      heddle::this_thread::sleep_for(5ms);
      s.release();
    });
    if (s.try_acquire_for(10ms)) {
      ++acquired;
    } else {
      ++timed_out;
      HEDDLE_ASSERT(heddle::chrono::steady_clock::now() >= heddle::chrono::steady_clock::time_point(10ms));
    }
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(acquired, 0);
  EXPECT_GT(timed_out, 0);
}

TEST(sync_semaphore, try_acquire_does_not_block) {
  auto r = heddle::explore(quiet({.iterations = 100}), [] {
    heddle::counting_semaphore<3> s(1);
    HEDDLE_ASSERT(s.try_acquire());
    HEDDLE_ASSERT(!s.try_acquire());
    s.release(3);
    HEDDLE_ASSERT(s.try_acquire() && s.try_acquire() && s.try_acquire() && !s.try_acquire());
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_semaphore, stale_count_from_an_unwound_iteration_does_not_poison_the_next) {
  static heddle::counting_semaphore<2> global(2);
  auto failing = heddle::explore(quiet({.iterations = 1}), [] {
    global.acquire();
    global.acquire();
    HEDDLE_ASSERT(false);  // ends with the count at 0
  });
  ASSERT_TRUE(failing.bug);
  auto clean = heddle::explore(quiet({.iterations = 100}), [] {
    HEDDLE_ASSERT(global.try_acquire());
    HEDDLE_ASSERT(global.try_acquire());
    global.release(2);
  });
  EXPECT_TRUE(clean) << clean.report;
}

TEST(sync_semaphore, outside_control_it_behaves_like_std) {
  heddle::counting_semaphore<8> s(0);
  heddle::binary_semaphore done(0);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&] { s.release(2); });
  for (int i = 0; i < 8; ++i) s.acquire();
  for (auto& t : threads) t.join();
  EXPECT_FALSE(s.try_acquire());
  EXPECT_FALSE(s.try_acquire_for(1ms));
  std::thread t([&] { done.release(); });
  EXPECT_TRUE(done.try_acquire_until(std::chrono::steady_clock::now() + 10s));
  t.join();
  EXPECT_EQ(heddle::binary_semaphore::max(), 1);
}

}  // namespace
