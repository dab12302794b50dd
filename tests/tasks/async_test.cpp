// The async primitives (heddle/async.hpp) and the thread pool: mutual
// exclusion, permits, events, channels (order, close, misuse), cancellation
// through heddle:: and std:: stop tokens, deadlocks among tasks with their
// wait-for explanation, and the pool's bound on running tasks.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <stop_token>
#include <string>
#include <vector>

#include "heddle/async.hpp"
#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/task.hpp"
#include "task_programs.hpp"

namespace {

using heddle::task;
using namespace std::chrono_literals;

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

task<void> locked_increment(heddle::async_mutex& m, int& counter) {
  auto guard = co_await m.scoped_lock();
  const int seen = counter;
  co_await heddle::yield();
  counter = seen + 1;
}

TEST(async_mutex, excludes_across_co_await) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(500, "random"), [] {
    heddle::async_mutex m;
    int counter = 0;
    auto a = heddle::run(locked_increment(m, counter));
    auto b = heddle::run(locked_increment(m, counter));
    auto c = heddle::run(locked_increment(m, counter));
    heddle::wait_all(a, b, c);
    HEDDLE_ASSERT(counter == 3);
  });
  EXPECT_FALSE(r.bug) << r.report;
}

task<void> lock_both(heddle::async_mutex& first, heddle::async_mutex& second) {
  auto g1 = co_await first.scoped_lock();
  co_await heddle::yield();
  auto g2 = co_await second.scoped_lock();
}

TEST(async_mutex, a_lock_order_deadlock_names_who_waits_for_what) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(1000, "random"), [] {
    heddle::async_mutex m1, m2;
    auto a = heddle::run(lock_both(m1, m2), "a");
    auto b = heddle::run(lock_both(m2, m1), "b");
    heddle::wait_all(a, b);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_TRUE(contains(r.bug->message, "(a) waits for mutex")) << r.bug->message;
  EXPECT_TRUE(contains(r.bug->message, "(b) waits for mutex")) << r.bug->message;
  EXPECT_TRUE(contains(r.bug->message, "held by operation")) << r.bug->message;
  EXPECT_TRUE(contains(r.bug->message, "operation 1 (main) waits for task")) << r.bug->message;
}

TEST(async_mutex, unlocking_one_that_is_not_locked_is_misuse) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(1), [] {
    heddle::async_mutex m;
    m.unlock();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message, "async_mutex::unlock of an async_mutex that is not locked");
}

// A thread mutex held across a co_await is released by the continuation,
// which is another operation (docs/tasks.md, "Thread primitives"): misuse, as
// it may be another thread on a real pool. The twin releases it before the
// co_await.
task<void> thread_mutex_across_await(heddle::mutex& m, int& counter) {
  m.lock();
  co_await heddle::yield();
  ++counter;
  m.unlock();
}
task<void> thread_mutex_before_await(heddle::mutex& m, int& counter) {
  m.lock();
  ++counter;
  m.unlock();
  co_await heddle::yield();
}

TEST(thread_mutex_in_a_task, held_across_a_co_await_is_unlocked_by_another_operation) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(1), [] {
    heddle::mutex m;
    int counter = 0;
    heddle::run(thread_mutex_across_await(m, counter)).wait();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  // The task is operation 2; its continuation after the yield, operation 3.
  EXPECT_EQ(r.bug->message, "unlock of a heddle::mutex owned by operation 2, not by the caller (operation 3)");
}

TEST(thread_mutex_in_a_task, released_before_the_co_await_is_fine) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(500, "random"), [] {
    heddle::mutex m;
    int counter = 0;
    auto a = heddle::run(thread_mutex_before_await(m, counter));
    auto b = heddle::run(thread_mutex_before_await(m, counter));
    heddle::wait_all(a, b);
    HEDDLE_ASSERT(counter == 2);
  });
  EXPECT_FALSE(r.bug) << r.report;
}

task<void> bounded(heddle::async_semaphore& s, int& inside, int& most) {
  co_await s.acquire();
  most = std::max(most, ++inside);
  co_await heddle::yield();
  --inside;
  s.release();
}

TEST(async_semaphore, lets_at_most_its_count_in) {
  int most = 0;
  const heddle::result r = heddle::explore(heddle_tasks::quiet(300, "random"), [&] {
    heddle::async_semaphore s(2);
    int inside = 0;
    auto a = heddle::run(bounded(s, inside, most));
    auto b = heddle::run(bounded(s, inside, most));
    auto c = heddle::run(bounded(s, inside, most));
    heddle::wait_all(a, b, c);
    HEDDLE_ASSERT(inside == 0);
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(most, 2);
}

TEST(async_event, releases_every_waiter_once_set) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(200, "random"), [] {
    heddle::async_event ready;
    int woke = 0;
    auto waiter = [](heddle::async_event& e, int& n) -> task<void> {
      co_await e.wait();
      ++n;
    };
    auto a = heddle::run(waiter(ready, woke));
    auto b = heddle::run(waiter(ready, woke));
    auto setter = heddle::run([](heddle::async_event& e) -> task<void> {
      co_await heddle::yield();
      e.set();
    }(ready));
    heddle::wait_all(a, b, setter);
    HEDDLE_ASSERT(woke == 2);
  });
  EXPECT_FALSE(r.bug) << r.report;
}

task<void> send_range(heddle::channel<int>& ch, int n) {
  for (int i = 0; i < n; ++i) co_await ch.send(i);
  ch.close();
}
task<std::vector<int>> drain(heddle::channel<int>& ch) {
  std::vector<int> got;
  while (auto v = co_await ch.receive()) got.push_back(*v);
  co_return got;
}

TEST(channel, delivers_in_order_and_ends_once_closed_and_drained) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(300, "random"), [] {
    heddle::channel<int> ch(2);
    auto producer = heddle::run(send_range(ch, 5));
    auto consumer = heddle::run(drain(ch));
    HEDDLE_ASSERT((consumer.get() == std::vector<int>{0, 1, 2, 3, 4}));
    producer.get();
    HEDDLE_ASSERT(ch.size() <= ch.capacity());
  });
  EXPECT_FALSE(r.bug) << r.report;
}

TEST(channel, closing_twice_is_misuse) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(1), [] {
    heddle::channel<int> ch(1);
    ch.close();
    ch.close();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message, "channel::close of a channel that is already closed");
}

// --- cancellation ---------------------------------------------------------------------

template <class Source>
void cancels_a_blocked_acquire() {
  int canceled = 0;
  const heddle::result r = heddle::explore(heddle_tasks::quiet(100, "random"), [&] {
    heddle::async_semaphore none(0);
    Source source;
    auto waiter = heddle::run([](heddle::async_semaphore& s, auto token) -> task<bool> {
      try {
        co_await s.acquire(token);
      } catch (const heddle::operation_canceled&) {
        co_return true;
      }
      co_return false;
    }(none, source.get_token()));
    auto canceller = heddle::run([](Source& src) -> task<void> {
      co_await heddle::yield();
      src.request_stop();
    }(source));
    if (waiter.get()) ++canceled;
    canceller.get();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(canceled, 100);
}

TEST(cancellation, a_heddle_stop_token_cancels_a_blocked_wait) { cancels_a_blocked_acquire<heddle::stop_source>(); }
TEST(cancellation, a_std_stop_token_cancels_a_blocked_wait) { cancels_a_blocked_acquire<std::stop_source>(); }

TEST(cancellation, a_cancelled_delay_ends_before_its_time) {
  // The delay may also end first (every order of a timed wait is explored);
  // when the stop wins, the clock has not reached the delay's end.
  int cancelled = 0, slept = 0;
  const heddle::result r = heddle::explore(heddle_tasks::quiet(100, "random"), [&] {
    heddle::stop_source source;
    auto sleeper = heddle::run([](heddle::stop_token token) -> task<bool> {
      try {
        co_await heddle::delay(1h, token);
      } catch (const heddle::operation_canceled&) {
        HEDDLE_ASSERT(heddle::now() < std::chrono::nanoseconds(1h).count());
        co_return true;
      }
      HEDDLE_ASSERT(heddle::now() >= std::chrono::nanoseconds(1h).count());
      co_return false;
    }(source.get_token()));
    source.request_stop();
    ++(sleeper.get() ? cancelled : slept);
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_GT(cancelled, 0);
  EXPECT_GT(slept, 0);
}

// --- the thread pool -------------------------------------------------------------------

task<void> occupy(int& running, int& most) {
  most = std::max(most, ++running);
  co_await heddle::yield();
  --running;
}

TEST(thread_pool, runs_at_most_its_workers_at_a_time_but_a_waiting_task_frees_its_worker) {
  int most = 0;
  const heddle::result r = heddle::explore(heddle_tasks::quiet(300, "random"), [&] {
    heddle::thread_pool pool(2);
    int running = 0;
    std::vector<task<void>> ts;
    for (int i = 0; i < 4; ++i) ts.push_back(pool.run(occupy(running, most)));
    for (auto& t : ts) t.get();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(most, 4);  // a yield gives the worker back: all four can be between their steps
}

task<int> one() { co_return 1; }
task<int> blocking_get(heddle::thread_pool& pool) { co_return pool.run(one()).get(); }

TEST(thread_pool, sync_over_async_with_a_free_worker_completes) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(300, "random"), [] {
    heddle::thread_pool pool(2);
    HEDDLE_ASSERT(pool.run(blocking_get(pool)).get() == 1);
  });
  EXPECT_FALSE(r.bug) << r.report;
}

TEST(thread_pool, sync_over_async_on_one_worker_is_a_deadlock_that_names_the_pool_worker) {
  const auto& programs = heddle_tasks::all_programs();
  const auto it = std::find_if(programs.begin(), programs.end(),
                               [](const auto& p) { return p.name == "sync_over_async_one_worker"; });
  ASSERT_NE(it, programs.end());
  const heddle::result r = heddle::explore(heddle_tasks::quiet(10), it->buggy);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_TRUE(contains(r.bug->message, "(handler) waits for task")) << r.bug->message;
  EXPECT_TRUE(contains(r.bug->message, "(lookup) waits for semaphore")) << r.bug->message;
  EXPECT_TRUE(contains(r.bug->message, "held by operation")) << r.bug->message;
}

}  // namespace
