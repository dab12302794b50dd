// heddle::shared_mutex and shared_timed_mutex: readers share, writers
// exclude, misuse reports, timed locks on virtual time, std behaviour
// outside control, and state reset across iterations.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "heddle/explore.hpp"
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

template <class M>
class sync_shared_mutex_family : public ::testing::Test {};
using shared_types = ::testing::Types<heddle::shared_mutex, heddle::shared_timed_mutex>;
TYPED_TEST_SUITE(sync_shared_mutex_family, shared_types);

TYPED_TEST(sync_shared_mutex_family, writers_exclude_everyone_and_readers_share_over_2000_iterations) {
  int most_readers = 0;
  auto r = heddle::explore(quiet({.iterations = 2000}), [&] {
    TypeParam m;
    int readers = 0, writers = 0, value = 0;
    auto reader = [&] {
      m.lock_shared();
      ++readers;
      HEDDLE_ASSERT(writers == 0);
      heddle::this_thread::yield();
      most_readers = std::max(most_readers, readers);
      HEDDLE_ASSERT(writers == 0 && value % 2 == 0);
      --readers;
      m.unlock_shared();
    };
    auto writer = [&] {
      m.lock();
      ++writers;
      ++value;
      heddle::this_thread::yield();
      HEDDLE_ASSERT(writers == 1 && readers == 0);
      ++value;
      --writers;
      m.unlock();
    };
    heddle::thread a(reader), b(reader), c(writer);
    writer();
    a.join();
    b.join();
    c.join();
    HEDDLE_ASSERT(value == 4);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(most_readers, 2);  // the readers did overlap in some iteration
}

TYPED_TEST(sync_shared_mutex_family, stale_locks_from_an_unwound_iteration_do_not_poison_the_next) {
  static TypeParam global;
  auto failing = heddle::explore(quiet({.iterations = 1}), [] {
    heddle::thread t([] { global.lock_shared(); });
    t.join();
    global.lock_shared();
    HEDDLE_ASSERT(false);
  });
  ASSERT_TRUE(failing.bug);
  EXPECT_EQ(failing.bug->kind, heddle::bug_kind::assertion);
  auto clean = heddle::explore(quiet({.iterations = 200}), [] {
    heddle::thread t([] {
      global.lock_shared();
      global.unlock_shared();
    });
    global.lock();
    global.unlock();
    t.join();
  });
  EXPECT_TRUE(clean) << clean.report;
}

TYPED_TEST(sync_shared_mutex_family, outside_control_it_behaves_like_std) {
  TypeParam m;
  long total = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        if (t % 2 == 0) {
          std::unique_lock<TypeParam> g(m);
          ++total;
        } else {
          std::shared_lock<TypeParam> g(m);
          (void)total;
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(total, 20000);
  ASSERT_TRUE(m.try_lock_shared());
  ASSERT_TRUE(m.try_lock_shared());
  EXPECT_FALSE(m.try_lock());
  m.unlock_shared();
  m.unlock_shared();
}

heddle::bug expect_misuse(const std::function<void()>& body) {
  auto r = heddle::explore(quiet({.iterations = 200}), body);
  if (!r.bug) {
    ADD_FAILURE() << "no bug found";
    return {};
  }
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse) << r.bug->message;
  return *r.bug;
}

TEST(sync_shared_mutex, unlock_shared_without_holding_it_shared_is_misuse) {
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              m.unlock_shared();
            }).message,
            "unlock_shared of a heddle::shared_mutex the caller (operation 1) does not hold shared");
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_timed_mutex m;
              m.lock();
              m.unlock_shared();
            }).message,
            "unlock_shared of a heddle::shared_timed_mutex the caller (operation 1) does not hold shared "
            "(it holds it exclusively: use unlock)");
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              heddle::thread t([&] { m.lock_shared(); });
              t.join();
              m.unlock_shared();
            }).message,
            "unlock_shared of a heddle::shared_mutex the caller (operation 1) does not hold shared");
}

TEST(sync_shared_mutex, unlock_of_a_lock_held_shared_or_by_another_is_misuse) {
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              m.lock_shared();
              m.unlock();
            }).message,
            "unlock of a heddle::shared_mutex that is not locked exclusively (the caller holds it shared: "
            "use unlock_shared)");
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              m.lock();
              heddle::thread t([&] { m.unlock(); });
              t.join();
            }).message,
            "unlock of a heddle::shared_mutex owned by operation 1, not by the caller (operation 2)");
}

TEST(sync_shared_mutex, locking_again_in_either_mode_is_misuse) {
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              m.lock_shared();
              m.lock();
            }).message,
            "lock of a heddle::shared_mutex the caller (operation 1) already holds shared (self-deadlock or "
            "undefined behaviour in std: no recursion, no upgrade)");
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_timed_mutex m;
              m.lock();
              (void)m.try_lock_shared_for(1s);
            }).message,
            "lock_shared of a heddle::shared_timed_mutex the caller (operation 1) already holds exclusively "
            "(self-deadlock or undefined behaviour in std: no recursion, no upgrade)");
}

TEST(sync_shared_mutex, destroying_a_locked_shared_mutex_is_misuse) {
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              m.lock();
            }).message,
            "destroying a heddle::shared_mutex that is locked (by operation 1)");
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              m.lock_shared();
            }).message,
            "destroying a heddle::shared_mutex that is locked shared (by 1 operation(s), first operation 1)");
}

TEST(sync_shared_mutex, timed_locks_explore_both_acquired_and_timed_out) {
  int shared_ok = 0, shared_timeout = 0, exclusive_ok = 0, exclusive_timeout = 0;
  auto r = heddle::explore(quiet({.iterations = 1000}), [&] {
    heddle::shared_timed_mutex m;
    heddle::thread writer([&] {
      m.lock();
      heddle::this_thread::sleep_for(1s);
      m.unlock();
    });
    heddle::thread reader([&] {
      if (m.try_lock_shared_for(10ms)) {
        ++shared_ok;
        m.unlock_shared();
      } else {
        ++shared_timeout;
      }
    });
    if (m.try_lock_until(heddle::chrono::steady_clock::now() + 10ms)) {
      ++exclusive_ok;
      m.unlock();
    } else {
      ++exclusive_timeout;
      HEDDLE_ASSERT(heddle::chrono::steady_clock::now() >= heddle::chrono::steady_clock::time_point(10ms));
    }
    writer.join();
    reader.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(shared_ok, 0);
  EXPECT_GT(shared_timeout, 0);
  EXPECT_GT(exclusive_ok, 0);
  EXPECT_GT(exclusive_timeout, 0);
}

TEST(sync_shared_mutex, a_writer_waiting_for_readers_is_a_deadlock_when_a_reader_never_leaves) {
  auto r = heddle::explore(quiet({.iterations = 100}), [] {
    heddle::shared_mutex m;
    heddle::thread t([&] { m.lock_shared(); });  // never unlocks
    t.join();
    m.lock();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("shared_mutex #"), std::string::npos) << r.bug->message;
}

}  // namespace
