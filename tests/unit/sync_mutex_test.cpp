// heddle::mutex, timed_mutex, recursive_mutex, recursive_timed_mutex: mutual
// exclusion under control, misuse reports, timed locks on virtual time,
// std behaviour outside control, and state reset across iterations.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
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
class sync_mutex_family : public ::testing::Test {};
using mutex_types =
    ::testing::Types<heddle::mutex, heddle::timed_mutex, heddle::recursive_mutex, heddle::recursive_timed_mutex>;
TYPED_TEST_SUITE(sync_mutex_family, mutex_types);

TYPED_TEST(sync_mutex_family, mutual_exclusion_holds_over_2000_iterations) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    TypeParam m;
    int inside = 0;
    int total = 0;
    auto worker = [&] {
      for (int i = 0; i < 2; ++i) {
        m.lock();
        ++inside;
        heddle::this_thread::yield();
        HEDDLE_ASSERT(inside == 1);
        ++total;
        --inside;
        m.unlock();
      }
    };
    heddle::thread a(worker), b(worker);
    worker();
    a.join();
    b.join();
    HEDDLE_ASSERT(total == 6);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 2000u);
}

TYPED_TEST(sync_mutex_family, try_lock_fails_while_another_operation_holds_it) {
  auto r = heddle::explore(quiet({.iterations = 300}), [] {
    TypeParam m;
    bool held = false;
    heddle::thread t([&] {
      m.lock();
      held = true;
      heddle::this_thread::yield();
      held = false;
      m.unlock();
    });
    if (m.try_lock()) {
      HEDDLE_ASSERT(!held);
      m.unlock();
    }
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
}

// CHESS's rule: an operation about to lock a mutex another operation holds
// is not offered to the strategy, so no decision is spent on running it only
// to block. Every complete schedule of these threads then takes the same
// number of decisions (without the rule, the schedules that choose a blocked
// locker take one more each time).
TYPED_TEST(sync_mutex_family, a_lock_is_not_offered_while_another_operation_holds_the_mutex) {
  heddle::options o = quiet({.iterations = 1'000'000, .strategy = "dfs"});
  o.spurious_wakeups = false;
  auto r = heddle::explore(o, [] {
    TypeParam m;
    auto worker = [&] {
      for (int i = 0; i < 2; ++i) {
        m.lock();
        m.unlock();
      }
    };
    heddle::thread a(worker), b(worker);
    a.join();
    b.join();
  });
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_GT(r.stats.iterations, 1u);
  EXPECT_EQ(r.stats.steps_min, r.stats.steps_max);
}

// try_lock is offered while the mutex is held, and fails there: the rule
// above is for blocking locks only.
TYPED_TEST(sync_mutex_family, try_lock_is_still_explored_failing_while_another_operation_holds_it) {
  static int failed;
  failed = 0;
  auto r = heddle::explore(quiet({.iterations = 300}), [] {
    TypeParam m;
    heddle::thread t([&] {
      m.lock();
      heddle::this_thread::yield();
      m.unlock();
    });
    if (m.try_lock()) m.unlock();
    else ++failed;
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(failed, 0);
  EXPECT_LT(failed, 300);
}

// A model of one's own gets the same rule through heddle::lock_point and
// resource::set_owner.
TEST(sync_mutex, a_user_model_lock_point_is_not_offered_while_its_resource_has_another_owner) {
  struct user_lock {
    heddle::resource r{heddle::object_kind::user};
    heddle::operation_id owner = 0;
    void lock() {
      heddle::lock_point(r);
      while (owner != 0) heddle::wait(r);
      owner = heddle::current_operation();
      r.set_owner(owner);
    }
    void unlock() {
      heddle::scheduling_point(heddle::point_kind::release, r);
      owner = 0;
      r.set_owner(0);
      heddle::signal(r);
    }
  };
  auto r = heddle::explore(quiet({.iterations = 1'000'000, .strategy = "dfs"}), [] {
    user_lock l;
    int inside = 0;
    auto worker = [&] {
      l.lock();
      HEDDLE_ASSERT(++inside == 1);
      heddle::this_thread::yield();
      --inside;
      l.unlock();
    };
    heddle::thread a(worker), b(worker);
    a.join();
    b.join();
  });
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(r.stats.exhausted);
  EXPECT_EQ(r.stats.steps_min, r.stats.steps_max);
}

TYPED_TEST(sync_mutex_family, stale_lock_from_an_unwound_iteration_does_not_poison_the_next) {
  static TypeParam global;
  // Every iteration ends at max_steps while `global` is held.
  auto r = heddle::explore(quiet({.iterations = 50, .max_steps = 10}), [] {
    global.lock();
    for (int i = 0; i < 100; ++i) heddle::this_thread::yield();
    global.unlock();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.max_steps_hits, 50u);
  // An iteration that ends with a bug while holding it: the next run starts clean.
  auto failing = heddle::explore(quiet({.iterations = 1}), [] {
    global.lock();
    HEDDLE_ASSERT(false);
  });
  ASSERT_TRUE(failing.bug);
  EXPECT_EQ(failing.bug->kind, heddle::bug_kind::assertion);
  auto clean = heddle::explore(quiet({.iterations = 200}), [] {
    heddle::thread t([] {
      global.lock();
      global.unlock();
    });
    global.lock();
    global.unlock();
    t.join();
  });
  EXPECT_TRUE(clean) << clean.report;
}

TYPED_TEST(sync_mutex_family, outside_control_it_excludes_real_threads_like_std) {
  TypeParam m;
  long total = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        std::lock_guard<TypeParam> g(m);
        ++total;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(total, 80000);
  ASSERT_TRUE(m.try_lock());
  m.unlock();
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

TEST(sync_mutex, unlock_by_a_non_owner_is_misuse_naming_both_operations) {
  int line = 0;
  auto bug = expect_misuse([&] {
    heddle::mutex m;
    m.lock();
    heddle::thread t([&] {
      line = __LINE__ + 1;
      m.unlock();
    });
    t.join();
    m.unlock();
  });
  EXPECT_EQ(bug.message, "unlock of a heddle::mutex owned by operation 1, not by the caller (operation 2)");
  EXPECT_EQ(bug.where.line, static_cast<std::uint32_t>(line));
}

TEST(sync_mutex, unlock_of_an_unlocked_timed_mutex_is_misuse) {
  auto bug = expect_misuse([] {
    heddle::timed_mutex m;
    m.unlock();
  });
  EXPECT_EQ(bug.message, "unlock of a heddle::timed_mutex that is not locked");
}

TEST(sync_mutex, relocking_a_non_recursive_mutex_is_a_self_deadlock_misuse) {
  auto bug = expect_misuse([] {
    heddle::mutex m;
    m.lock();
    m.lock();
  });
  EXPECT_EQ(bug.message,
            "re-locking a heddle::mutex already held by the same operation (self-deadlock; use a recursive "
            "mutex or unlock first)");
  auto timed = expect_misuse([] {
    heddle::timed_mutex m;
    m.lock();
    (void)m.try_lock_for(1s);
  });
  EXPECT_EQ(timed.message,
            "re-locking a heddle::timed_mutex already held by the same operation (self-deadlock; use a "
            "recursive mutex or unlock first)");
  auto try_lock = expect_misuse([] {
    heddle::mutex m;
    m.lock();
    (void)m.try_lock();
  });
  EXPECT_EQ(try_lock.message,
            "try_lock of a heddle::mutex already held by the same operation (undefined behaviour in std)");
}

TEST(sync_mutex, destroying_a_locked_recursive_mutex_is_misuse) {
  auto bug = expect_misuse([] {
    heddle::recursive_mutex m;
    m.lock();
  });
  EXPECT_EQ(bug.message, "destroying a heddle::recursive_mutex that is locked (by operation 1)");
}

TEST(sync_mutex, recursive_mutex_is_released_only_by_the_last_unlock) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::recursive_mutex m;
    bool held = false, released = false;
    heddle::thread t([&] {
      while (!held) heddle::this_thread::yield();
      m.lock();
      HEDDLE_ASSERT(released);
      m.unlock();
    });
    m.lock();
    m.lock();
    held = true;
    HEDDLE_ASSERT(m.try_lock());
    m.unlock();
    m.unlock();
    heddle::this_thread::yield();
    released = true;
    m.unlock();
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_mutex, recursive_unlock_beyond_the_count_is_misuse) {
  auto bug = expect_misuse([] {
    heddle::recursive_timed_mutex m;
    m.lock();
    m.lock();
    m.unlock();
    m.unlock();
    m.unlock();
  });
  EXPECT_EQ(bug.message, "unlock of a heddle::recursive_timed_mutex that is not locked");
}

template <class M>
void timed_lock_explores_both_outcomes() {
  int acquired = 0, timed_out = 0;
  auto r = heddle::explore(quiet({.iterations = 500}), [&] {
    M m;
    heddle::thread holder([&] {
      m.lock();
      heddle::this_thread::sleep_for(1s);
      m.unlock();
    });
    heddle::this_thread::yield();
    const auto start = heddle::chrono::steady_clock::now();
    if (m.try_lock_for(10ms)) {
      ++acquired;
      m.unlock();
    } else {
      ++timed_out;
      HEDDLE_ASSERT(heddle::chrono::steady_clock::now() - start >= 10ms);
    }
    holder.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(acquired, 0);
  EXPECT_GT(timed_out, 0);
}

TEST(sync_mutex, timed_lock_explores_both_acquired_and_timed_out) {
  timed_lock_explores_both_outcomes<heddle::timed_mutex>();
  timed_lock_explores_both_outcomes<heddle::recursive_timed_mutex>();
}

TEST(sync_mutex, try_lock_until_a_past_deadline_behaves_like_try_lock) {
  auto r = heddle::explore(quiet({.iterations = 200}), [] {
    heddle::timed_mutex m;
    bool locked = false, done = false;
    heddle::thread t([&] {
      m.lock();
      locked = true;
      while (!done) heddle::this_thread::yield();
      m.unlock();
    });
    while (!locked) heddle::this_thread::yield();
    HEDDLE_ASSERT(!m.try_lock_until(heddle::chrono::steady_clock::now() - 1ms));
    done = true;
    t.join();
    HEDDLE_ASSERT(m.try_lock_until(heddle::chrono::steady_clock::now() - 1ms));
    m.unlock();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_mutex, timed_locks_outside_control_use_real_time) {
  heddle::timed_mutex m;
  m.lock();
  std::thread t([&] { EXPECT_FALSE(m.try_lock_for(5ms)); });
  t.join();
  m.unlock();
  EXPECT_TRUE(m.try_lock_until(std::chrono::steady_clock::now() + 5ms));
  m.unlock();
  heddle::recursive_timed_mutex r;
  EXPECT_TRUE(r.try_lock_for(1ms));
  EXPECT_TRUE(r.try_lock());
  r.unlock();
  r.unlock();
}

TEST(sync_mutex, std_lock_guard_of_heddle_mutex_works_under_control) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::mutex m;
    int n = 0;
    heddle::thread t([&] {
      std::lock_guard<heddle::mutex> g(m);
      ++n;
    });
    {
      std::lock_guard<heddle::mutex> g(m);
      ++n;
    }
    t.join();
    HEDDLE_ASSERT(n == 2);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_mutex, an_iteration_ending_inside_a_noexcept_unlock_does_not_terminate) {
  // std::lock_guard's destructor is noexcept: an operation paused at its
  // release point when another one fails must not be unwound by a throw there.
  auto r = heddle::explore(quiet({.iterations = 300, .stop_on_first_bug = false}), [] {
    heddle::mutex m;
    heddle::thread t([&] {
      for (int i = 0; i < 3; ++i) std::lock_guard<heddle::mutex> g(m);
    });
    heddle::this_thread::yield();
    heddle::this_thread::yield();
    HEDDLE_ASSERT(false);
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
}

}  // namespace
