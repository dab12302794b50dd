// heddle::atomic<T>, atomic_flag and fences: every operation is a scheduling
// point, compare_exchange_weak may fail spuriously, wait/notify block and wake,
// and outside control everything is plain std.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/shared.hpp"
#include "heddle/thread.hpp"

namespace {
heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}
}  // namespace

TEST(atomic, counter_is_correct_where_shared_loses_updates) {
  auto lost = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::shared<int> counter{0};
    heddle::thread a([&] { counter++; });
    heddle::thread b([&] { counter++; });
    a.join();
    b.join();
    HEDDLE_ASSERT(counter == 2);
  });
  ASSERT_TRUE(lost.bug);
  EXPECT_EQ(lost.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(lost.bug->message, "assertion failed: counter == 2");

  auto fixed = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::atomic<int> counter{0};
    heddle::thread a([&] { counter++; });
    heddle::thread b([&] { counter.fetch_add(1); });
    a.join();
    b.join();
    HEDDLE_ASSERT(counter == 2);
  });
  EXPECT_TRUE(fixed) << fixed.report;
  EXPECT_EQ(fixed.stats.iterations, 2000u);
}

TEST(atomic, load_then_store_increment_loses_updates) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::atomic<int> counter{0};
    auto bump = [&] { counter.store(counter.load() + 1); };
    heddle::thread a(bump);
    heddle::thread b(bump);
    a.join();
    b.join();
    HEDDLE_ASSERT(counter.load() == 2);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "assertion failed: counter.load() == 2");
}

TEST(atomic, cas_loop_increment_is_correct) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::atomic<unsigned> counter{0};
    auto bump = [&] {
      unsigned seen = counter.load();
      while (!counter.compare_exchange_weak(seen, seen + 1)) {
      }
    };
    heddle::thread a(bump);
    heddle::thread b(bump);
    bump();
    a.join();
    b.join();
    HEDDLE_ASSERT(counter.load() == 3u);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 2000u);
}

TEST(atomic, compare_exchange_weak_fails_spuriously_only_when_enabled) {
  // The comparison always succeeds here (one operation), so any failure is spurious.
  auto body = [] {
    heddle::atomic<int> x{0};
    int expected = 0;
    const bool ok = x.compare_exchange_weak(expected, 1);
    HEDDLE_ASSERT_MSG(ok, "spurious failure");
    HEDDLE_ASSERT(x.load() == 1);
  };
  auto with = heddle::explore(quiet({.iterations = 2000}), body);
  ASSERT_TRUE(with.bug);
  EXPECT_EQ(with.bug->kind, heddle::bug_kind::assertion);
  // The summary line says that a spurious event made the bug.
  EXPECT_TRUE(with.bug->message.starts_with("spurious failure (after a spurious compare_exchange_weak failure at step "))
      << with.bug->message;

  auto without = heddle::explore(quiet({.iterations = 2000, .spurious_cas_failures = false}), body);
  EXPECT_TRUE(without) << without.report;
  EXPECT_EQ(without.stats.iterations, 2000u);
}

TEST(atomic, spurious_failure_updates_expected_like_std) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::atomic<int> x{7};
    int expected = 7;
    if (!x.compare_exchange_weak(expected, 8)) {
      HEDDLE_ASSERT(expected == 7 && x.load() == 7);
    } else {
      HEDDLE_ASSERT(x.load() == 8);
    }
    int wrong = 3;
    HEDDLE_ASSERT(!x.compare_exchange_strong(wrong, 9));
    HEDDLE_ASSERT(wrong == x.load());
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(atomic, wait_returns_after_store_and_notify) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::atomic<int> ready{0};
    heddle::thread t([&] {
      ready.store(1);
      ready.notify_one();
    });
    ready.wait(0);
    HEDDLE_ASSERT(ready.load() == 1);
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 2000u);
}

TEST(atomic, wait_without_notify_deadlocks) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::atomic<int> ready{0};
    heddle::thread t([&] { ready.store(1); });  // forgets notify_one()
    ready.wait(0);
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("operation 1 (main) waits for atomic #"), std::string::npos) << r.bug->message;
}

TEST(atomic, flag_spinlock_protects_a_shared_variable) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::atomic_flag lock;
    heddle::shared<int> x{0};
    auto critical = [&] {
      while (lock.test_and_set(std::memory_order_acquire)) lock.wait(true);
      x++;
      lock.clear(std::memory_order_release);
      lock.notify_one();
    };
    heddle::thread a(critical);
    critical();
    a.join();
    HEDDLE_ASSERT(x == 2);
    HEDDLE_ASSERT(!lock.test());
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(atomic, every_operation_kind_is_recorded_in_the_trace) {
  auto r = heddle::explore(quiet({.iterations = 1}), [] {
    heddle::atomic<int> x{0};
    heddle::thread t([&] { x.store(1); });
    (void)x.load();
    (void)x.exchange(2);
    heddle::atomic_thread_fence(std::memory_order_seq_cst);
    t.join();
    HEDDLE_ASSERT(false);  // end with a bug so the trace is kept
  });
  ASSERT_TRUE(r.bug);
  bool read = false, write = false, rmw = false, fence = false;
  for (const auto& s : r.trace.steps) {
    read |= s.point == heddle::point_kind::read;
    write |= s.point == heddle::point_kind::write;
    rmw |= s.point == heddle::point_kind::rmw;
    fence |= s.point == heddle::point_kind::fence;
  }
  EXPECT_TRUE(read && write && rmw && fence);
}

TEST(atomic, arithmetic_and_bitwise_operations_match_std) {
  heddle::atomic<int> i{5};
  EXPECT_EQ(i.fetch_add(2), 5);
  EXPECT_EQ(i.fetch_sub(1), 7);
  EXPECT_EQ(++i, 7);
  EXPECT_EQ(i--, 7);
  EXPECT_EQ(i += 10, 16);
  EXPECT_EQ(i -= 1, 15);
  EXPECT_EQ(i.fetch_and(6), 15);
  EXPECT_EQ(i.fetch_or(1), 6);
  EXPECT_EQ(i.fetch_xor(3), 7);
  EXPECT_EQ(i |= 8, 12);
  EXPECT_EQ(i &= 4, 4);
  EXPECT_EQ(i ^= 5, 1);
  EXPECT_EQ(i.exchange(9), 1);
  EXPECT_EQ(heddle::atomic_load(&i), 9);
  heddle::atomic_store(&i, 3);
  EXPECT_EQ(heddle::atomic_fetch_add(&i, 1), 3);
  EXPECT_TRUE(i.is_lock_free());

  heddle::atomic<double> d{1.5};
  EXPECT_EQ(d.fetch_add(1.0), 1.5);
  EXPECT_EQ(d -= 0.5, 2.0);

  int arr[4] = {0, 1, 2, 3};
  heddle::atomic<int*> p{arr};
  EXPECT_EQ(p.fetch_add(2), arr);
  EXPECT_EQ(++p, arr + 3);
  EXPECT_EQ(p -= 3, arr);

  struct pair {
    int a, b;
  };
  heddle::atomic<pair> s{pair{1, 2}};
  pair want{1, 2};
  EXPECT_TRUE(s.compare_exchange_strong(want, pair{3, 4}));
  EXPECT_EQ(s.load().a, 3);

  heddle::atomic<bool> b;
  EXPECT_FALSE(b.load());
  EXPECT_FALSE(b.exchange(true));
}

TEST(atomic, outside_control_counts_real_threads_like_std) {
  heddle::atomic<long> counter{0};
  heddle::atomic_flag flag;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) counter.fetch_add(1, std::memory_order_relaxed);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter.load(), 40000);

  std::thread waker([&] {
    counter.store(-1);
    counter.notify_all();
    flag.test_and_set();
    flag.notify_one();
  });
  counter.wait(40000);
  flag.wait(false);
  waker.join();
  EXPECT_EQ(counter.load(), -1);
  EXPECT_TRUE(flag.test());
}
