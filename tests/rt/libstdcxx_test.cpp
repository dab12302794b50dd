// std::thread, std::mutex, std::condition_variable, std::shared_mutex,
// std::call_once and std::this_thread reach the pthread surface through
// libstdc++'s calls into pthreads: the code below uses only the standard
// library, and heddle controls it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "rt_test_support.hpp"

namespace {

using heddle::bug_kind;
using heddle::rt_test::expect_bug;
using heddle::rt_test::explore_quietly;
using namespace std::chrono_literals;

void check(bool condition, const char* what) {
  if (!condition) heddle::assertion_failed(std::string("check failed: ") + what);
}

// Read under the lock, write under the lock again: an atomicity violation.
void split_increments(bool split) {
  std::mutex m;
  int value = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&] {
      if (!split) {
        std::lock_guard g(m);
        ++value;
        return;
      }
      int seen = 0;
      {
        std::lock_guard g(m);
        seen = value;
      }
      std::lock_guard g(m);
      value = seen + 1;
    });
  }
  for (auto& t : threads) t.join();
  check(value == 2, "both increments counted");
}

TEST(RtLibstdcxx, ThreadAndMutexAtomicityViolationIsFound) {
  const auto r = explore_quietly([] { split_increments(true); }, 300);
  expect_bug(r, bug_kind::assertion, "both increments counted");
  EXPECT_TRUE(explore_quietly([] { split_increments(false); }, 300));
}

void handshake(bool predicate) {
  std::mutex m;
  std::condition_variable cv;
  bool ready = false;
  std::thread waiter([&] {
    std::unique_lock lock(m);
    if (predicate) cv.wait(lock, [&] { return ready; });
    else cv.wait(lock);
  });
  {
    std::lock_guard g(m);
    ready = true;
  }
  cv.notify_one();
  waiter.join();
}

TEST(RtLibstdcxx, ConditionVariableLostWakeupIsADeadlock) {
  const auto r = explore_quietly([] { handshake(false); }, 300);
  expect_bug(r, bug_kind::deadlock, "condition_variable");
  EXPECT_TRUE(explore_quietly([] { handshake(true); }, 300));
}

TEST(RtLibstdcxx, SharedMutexReadersSeeConsistentPairs) {
  const auto r = explore_quietly([] {
    std::shared_mutex m;
    int a = 0;
    int b = 0;
    std::thread writer([&] {
      for (int i = 1; i <= 2; ++i) {
        std::unique_lock g(m);
        a = i;
        std::this_thread::yield();
        b = i;
      }
    });
    std::thread reader([&] {
      for (int i = 0; i < 2; ++i) {
        std::shared_lock g(m);
        check(a == b, "a reader sees a and b from the same write");
      }
    });
    writer.join();
    reader.join();
  }, 300);
  EXPECT_TRUE(r) << r.report;
}

TEST(RtLibstdcxx, CallOnceRunsOnceAndSleepsAndTimedWaitsUseVirtualTime) {
  int runs = 0;
  heddle::virtual_time slept = 0;
  const auto r = explore_quietly([&] {
    std::once_flag once;
    int calls = 0;
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i)
      threads.emplace_back([&] { std::call_once(once, [&] { ++calls; }); });
    for (auto& t : threads) t.join();
    runs = calls;
    check(calls == 1, "call_once ran its callable once");

    std::this_thread::sleep_for(1h);
    std::mutex m;
    std::condition_variable cv;
    std::unique_lock lock(m);
    check(cv.wait_for(lock, 1h) == std::cv_status::timeout || true, "a wait for nothing ends");
    std::timed_mutex tm;
    std::thread holder([&] {
      std::lock_guard g(tm);
      std::this_thread::sleep_for(10min);
    });
    if (tm.try_lock_for(1min)) tm.unlock();
    holder.join();
    slept = heddle::now();
  }, 100);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(runs, 1);
  EXPECT_GE(slept, std::chrono::nanoseconds(1h).count());
}

TEST(RtLibstdcxx, RecursiveMutexNestsAndSelfRelockOfAMutexIsADeadlock) {
  EXPECT_TRUE(explore_quietly([] {
    std::recursive_mutex m;
    std::lock_guard a(m);
    std::lock_guard b(m);
  }, 3));
  const auto r = explore_quietly([] {
    std::mutex m;
    m.lock();
    m.lock();
  }, 3);
  expect_bug(r, bug_kind::deadlock, "self-deadlock");
}

// Run by the rt_tests.threads_backend test (HEDDLE_BACKEND=threads): each
// operation is an OS thread of its own, so thread_local is per thread as in
// production. (Under fibers they share one OS thread and its thread_locals.)
TEST(RtLibstdcxx, ThreadLocalsArePerThreadOnTheThreadsBackend) {
  const char* backend = std::getenv("HEDDLE_BACKEND");
  if (backend == nullptr || std::string(backend) != "threads") GTEST_SKIP() << "needs HEDDLE_BACKEND=threads";
  static thread_local int counted = 0;
  const auto r = explore_quietly([] {
    auto count = [] {
      counted = 0;
      for (int i = 1; i <= 3; ++i) {
        ++counted;
        std::this_thread::yield();
        check(counted == i, "a thread_local counts only its own thread's increments");
      }
    };
    std::thread a(count);
    std::thread b(count);
    a.join();
    b.join();
  }, 100);
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
