// heddle::lock_guard, unique_lock, scoped_lock, shared_lock, heddle::lock and
// heddle::try_lock: std semantics with heddle and std mutexes, the user's
// lock site in reports, deadlock avoidance under control, and reset across
// iterations.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "heddle/explore.hpp"
#include "heddle/lock.hpp"
#include "heddle/mutex.hpp"
#include "heddle/shared_mutex.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"

using namespace std::chrono_literals;

namespace {

heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

// Deduction guides: the lock types deduce their mutex like std's.
static_assert(std::is_same_v<decltype(heddle::lock_guard(std::declval<heddle::mutex&>())),
                             heddle::lock_guard<heddle::mutex>>);
static_assert(std::is_same_v<decltype(heddle::unique_lock(std::declval<std::mutex&>())),
                             heddle::unique_lock<std::mutex>>);
static_assert(std::is_same_v<decltype(heddle::scoped_lock(std::declval<heddle::mutex&>(),
                                                          std::declval<std::mutex&>())),
                             heddle::scoped_lock<heddle::mutex, std::mutex>>);
static_assert(std::is_same_v<decltype(heddle::scoped_lock(heddle::adopt_lock, std::declval<heddle::mutex&>())),
                             heddle::scoped_lock<heddle::mutex>>);
static_assert(std::is_same_v<decltype(heddle::shared_lock(std::declval<heddle::shared_mutex&>())),
                             heddle::shared_lock<heddle::shared_mutex>>);
static_assert(std::is_same_v<heddle::scoped_lock<heddle::mutex>::mutex_type, heddle::mutex>);

TEST(sync_lock, scoped_lock_in_opposite_orders_never_deadlocks_over_2000_iterations) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::mutex a, b;
    int inside = 0;
    heddle::thread t([&] {
      heddle::scoped_lock both(b, a);
      HEDDLE_ASSERT(++inside == 1);
      --inside;
    });
    {
      heddle::scoped_lock both(a, b);
      HEDDLE_ASSERT(++inside == 1);
      heddle::this_thread::yield();
      --inside;
    }
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_lock, lock_and_try_lock_of_three_avoid_deadlock) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::mutex a;
    heddle::timed_mutex b;
    heddle::recursive_mutex c;
    int total = 0;
    heddle::thread t([&] {
      heddle::lock(c, b, a);
      ++total;
      a.unlock();
      b.unlock();
      c.unlock();
    });
    heddle::thread u([&] {
      heddle::unique_lock la(a, heddle::defer_lock);
      heddle::unique_lock lb(b, heddle::defer_lock);
      while (heddle::try_lock(la, lb) != -1) heddle::this_thread::yield();
      HEDDLE_ASSERT(la.owns_lock() && lb.owns_lock());
      ++total;
    });
    heddle::lock(a, b, c);
    ++total;
    c.unlock();
    b.unlock();
    a.unlock();
    t.join();
    u.join();
    HEDDLE_ASSERT(total == 3);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_lock, try_lock_reports_the_busy_lockable_and_leaves_none_held) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::mutex a, b, c;
    heddle::thread t([&] {
      b.lock();
      heddle::this_thread::yield();
    });
    t.join();
    HEDDLE_ASSERT(heddle::try_lock(a, b, c) == 1);
    HEDDLE_ASSERT(a.try_lock());  // given back
    a.unlock();
    // b is still held by the finished operation: that is this test's own leak.
  });
  ASSERT_TRUE(r.bug);  // destroying the locked `b`
  EXPECT_EQ(r.bug->message, "destroying a heddle::mutex that is locked (by operation 2)");
}

TEST(sync_lock, the_users_lock_site_shows_in_misuse_reports) {
  int line = 0;
  auto r = heddle::explore(quiet({.iterations = 10}), [&] {
    heddle::mutex m;
    heddle::lock_guard outer(m);
    line = __LINE__ + 1;
    heddle::unique_lock inner(m);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->where.line, static_cast<std::uint32_t>(line));
  EXPECT_NE(r.bug->where.file.find("sync_lock_test.cpp"), std::string::npos);
}

TEST(sync_lock, unique_lock_follows_std_semantics_under_control) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::timed_mutex m;
    heddle::unique_lock<heddle::timed_mutex> empty;
    HEDDLE_ASSERT(!empty && empty.mutex() == nullptr);
    heddle::unique_lock lk(m, heddle::defer_lock);
    HEDDLE_ASSERT(!lk.owns_lock());
    HEDDLE_ASSERT(lk.try_lock_for(1ms));
    bool threw = false;
    try {
      lk.lock();
    } catch (const std::system_error& e) {
      threw = e.code() == std::errc::resource_deadlock_would_occur;
    }
    HEDDLE_ASSERT(threw);
    heddle::unique_lock moved(std::move(lk));
    HEDDLE_ASSERT(moved.owns_lock() && !lk.owns_lock() && moved.mutex() == &m);
    heddle::thread t([&] {
      heddle::unique_lock other(m, 10ms);  // may time out: moved holds m
      if (other) other.unlock();
    });
    heddle::this_thread::yield();
    moved.unlock();
    threw = false;
    try {
      moved.unlock();
    } catch (const std::system_error& e) {
      threw = e.code() == std::errc::operation_not_permitted;
    }
    HEDDLE_ASSERT(threw);
    t.join();
    heddle::unique_lock adopted(m, heddle::try_to_lock);
    HEDDLE_ASSERT(adopted.owns_lock());
    heddle::timed_mutex* raw = adopted.release();
    HEDDLE_ASSERT(raw == &m && !adopted.owns_lock());
    heddle::unique_lock again(m, heddle::adopt_lock);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_lock, shared_lock_lets_readers_share_and_excludes_writers) {
  int both_readers = 0;
  auto r = heddle::explore(quiet({.iterations = 2000}), [&] {
    heddle::shared_timed_mutex m;
    int readers = 0;
    bool writing = false;
    auto reader = [&] {
      heddle::shared_lock lk(m);
      ++readers;
      HEDDLE_ASSERT(!writing);
      heddle::this_thread::yield();
      if (readers == 2) ++both_readers;
      --readers;
    };
    heddle::thread a(reader), b(reader);
    {
      heddle::unique_lock w(m, heddle::chrono::steady_clock::now() + 1s);
      if (w) {
        writing = true;
        HEDDLE_ASSERT(readers == 0);
        heddle::this_thread::yield();
        writing = false;
      }
    }
    a.join();
    b.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(both_readers, 0);
}

TEST(sync_lock, a_lock_abandoned_by_an_unwound_iteration_does_not_poison_the_next) {
  static heddle::mutex a, b;
  auto failing = heddle::explore(quiet({.iterations = 1}), [] {
    heddle::thread t([] {
      heddle::scoped_lock both(a, b);
      for (;;) heddle::this_thread::yield();
    });
    heddle::this_thread::yield();
    HEDDLE_ASSERT(false);
    t.join();
  });
  ASSERT_TRUE(failing.bug);
  EXPECT_EQ(failing.bug->kind, heddle::bug_kind::assertion);
  auto clean = heddle::explore(quiet({.iterations = 200}), [] {
    heddle::thread t([] { heddle::scoped_lock both(b, a); });
    { heddle::scoped_lock both(a, b); }
    t.join();
  });
  EXPECT_TRUE(clean) << clean.report;
}

TEST(sync_lock, outside_control_they_work_with_std_and_heddle_mutexes) {
  std::mutex sa;
  heddle::mutex ha;
  heddle::shared_mutex hs;
  long total = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5000; ++i) {
        if (t % 2 == 0) {
          heddle::scoped_lock both(sa, ha);
          ++total;
        } else {
          heddle::scoped_lock both(ha, sa);
          heddle::shared_lock reading(hs);
          ++total;
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(total, 20000);
  {
    heddle::lock_guard g(sa);
    heddle::unique_lock u(ha);
    EXPECT_EQ(heddle::try_lock(sa, ha), 0);
  }
  heddle::lock(sa, ha);
  heddle::lock_guard g1(sa, heddle::adopt_lock);
  heddle::lock_guard g2(ha, heddle::adopt_lock);
}

}  // namespace
