// heddle::condition_variable and condition_variable_any: correct waits under
// control, lost wake-ups as deadlocks, spurious wake-ups, notify_one waking
// exactly one waiter, timed waits with both outcomes, misuse reports, stop
// tokens, std behaviour outside control, and reset across iterations.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "heddle/condition_variable.hpp"
#include "heddle/explore.hpp"
#include "heddle/lock.hpp"
#include "heddle/mutex.hpp"
#include "heddle/shared_mutex.hpp"
#include "heddle/stop_token.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"

using namespace std::chrono_literals;

namespace {

heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

// A one-slot queue: the classic correct use, with a predicate.
template <class Lock>
void producer_consumer() {
  heddle::mutex m;
  heddle::condition_variable cv;
  int slot = 0;  // 0: empty
  int received = 0;
  heddle::thread consumer([&] {
    for (int i = 1; i <= 3; ++i) {
      Lock lk(m);
      cv.wait(lk, [&] { return slot != 0; });
      HEDDLE_ASSERT(slot == i);
      received += slot;
      slot = 0;
      cv.notify_one();
    }
  });
  for (int i = 1; i <= 3; ++i) {
    Lock lk(m);
    cv.wait(lk, [&] { return slot == 0; });
    slot = i;
    cv.notify_one();
  }
  consumer.join();
  HEDDLE_ASSERT(received == 6);
}

TEST(sync_condition_variable, producer_consumer_with_predicates_is_correct_over_2000_iterations) {
  auto r = heddle::explore(quiet({.iterations = 2000}), producer_consumer<heddle::unique_lock<heddle::mutex>>);
  EXPECT_TRUE(r) << r.report;
  auto s = heddle::explore(quiet({.iterations = 2000}), producer_consumer<std::unique_lock<heddle::mutex>>);
  EXPECT_TRUE(s) << s.report;
}

TEST(sync_condition_variable, lost_wakeup_without_predicate_is_a_deadlock_on_the_condition_variable) {
  auto r = heddle::explore(quiet({.iterations = 1000, .spurious_wakeups = false}), [] {
    heddle::mutex m;
    heddle::condition_variable cv;
    bool ready = false;
    heddle::thread notifier([&] {
      {
        heddle::lock_guard g(m);
        ready = true;
      }
      cv.notify_one();
    });
    heddle::unique_lock lk(m);
    cv.wait(lk);  // bug: no predicate, the notify may come first
    HEDDLE_ASSERT(ready);
    lk.unlock();
    notifier.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for condition_variable #"), std::string::npos) << r.bug->message;
}

TEST(sync_condition_variable, spurious_wakeup_is_explored_when_enabled) {
  auto buggy = [] {
    heddle::mutex m;
    heddle::condition_variable cv;
    bool ready = false;
    heddle::thread notifier([&] {
      heddle::lock_guard g(m);
      ready = true;
      cv.notify_one();
    });
    {
      heddle::unique_lock lk(m);
      if (!ready) cv.wait(lk);  // bug: `if` instead of `while`
      HEDDLE_ASSERT(ready);
    }
    notifier.join();
  };
  auto r = heddle::explore(quiet({.iterations = 5000}), buggy);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  // The summary line says that a spurious wake-up made the bug.
  EXPECT_TRUE(r.bug->message.starts_with("assertion failed: ready (after a spurious wake-up at step ")) << r.bug->message;
  auto off = heddle::explore(quiet({.iterations = 2000, .spurious_wakeups = false}), buggy);
  EXPECT_TRUE(off) << off.report;
}

TEST(sync_condition_variable, notify_one_wakes_exactly_one_waiter_chosen_by_the_strategy) {
  std::set<int> first_woken;
  auto r = heddle::explore(quiet({.iterations = 500, .spurious_wakeups = false}), [&] {
    heddle::mutex m;
    heddle::condition_variable cv;
    int waiting = 0, woken = 0, notified = 0, first = 0;
    auto waiter = [&](int who) {
      heddle::unique_lock lk(m);
      ++waiting;
      cv.wait(lk);
      ++woken;
      HEDDLE_ASSERT(woken <= notified);
      if (first == 0) first = who;
    };
    heddle::thread a(waiter, 1), b(waiter, 2);
    for (bool both = false; !both; heddle::this_thread::yield()) {
      heddle::lock_guard g(m);
      both = waiting == 2;  // both are blocked: each released m only to block
    }
    for (int i = 0; i < 2; ++i) {
      {
        heddle::lock_guard g(m);
        ++notified;
      }
      cv.notify_one();
      for (int seen = 0; seen < notified; heddle::this_thread::yield()) {
        heddle::lock_guard g(m);
        seen = woken;
      }
      heddle::lock_guard g(m);
      HEDDLE_ASSERT(woken == notified);
    }
    a.join();
    b.join();
    first_woken.insert(first);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(first_woken, (std::set<int>{1, 2}));
}

TEST(sync_condition_variable, notify_all_wakes_every_waiter) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::mutex m;
    heddle::condition_variable_any cv;
    bool go = false;
    int done = 0;
    auto waiter = [&] {
      heddle::unique_lock lk(m);
      cv.wait(lk, [&] { return go; });
      ++done;
    };
    heddle::thread a(waiter), b(waiter), c(waiter);
    {
      heddle::lock_guard g(m);
      go = true;
    }
    cv.notify_all();
    a.join();
    b.join();
    c.join();
    HEDDLE_ASSERT(done == 3);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_condition_variable, notify_one_instead_of_notify_all_is_found_as_a_deadlock) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::mutex m;
    heddle::condition_variable cv;
    bool go = false;
    auto waiter = [&] {
      heddle::unique_lock lk(m);
      cv.wait(lk, [&] { return go; });
    };
    heddle::thread a(waiter), b(waiter);
    {
      heddle::lock_guard g(m);
      go = true;
    }
    cv.notify_one();  // bug: two waiters may be blocked
    a.join();
    b.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("condition_variable #"), std::string::npos) << r.bug->message;
}

TEST(sync_condition_variable, timed_wait_explores_both_timeout_and_signal) {
  int timeouts = 0, signals = 0;
  auto r = heddle::explore(quiet({.iterations = 1000, .spurious_wakeups = false}), [&] {
    heddle::mutex m;
    heddle::condition_variable cv;
    bool notified = false;
    heddle::thread notifier([&] {
      heddle::lock_guard g(m);
      notified = true;
      cv.notify_one();
    });
    {
      heddle::unique_lock lk(m);
      if (!notified) {
        const auto status = cv.wait_for(lk, 50ms);
        if (status == std::cv_status::timeout) {
          ++timeouts;
          HEDDLE_ASSERT(heddle::chrono::steady_clock::now() >= heddle::chrono::steady_clock::time_point(50ms));
        } else {
          ++signals;
          HEDDLE_ASSERT(notified);
          HEDDLE_ASSERT(heddle::chrono::steady_clock::now() < heddle::chrono::steady_clock::time_point(50ms));
        }
      }
    }
    notifier.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(timeouts, 0);
  EXPECT_GT(signals, 0);
}

TEST(sync_condition_variable, timed_wait_with_predicate_returns_the_predicate) {
  int satisfied = 0, expired = 0;
  auto r = heddle::explore(quiet({.iterations = 1000}), [&] {
    heddle::mutex m;
    heddle::condition_variable_any cv;
    bool ready = false;
    heddle::thread notifier([&] {
      heddle::this_thread::sleep_for(20ms);
      heddle::lock_guard g(m);
      ready = true;
      cv.notify_all();
    });
    {
      std::unique_lock<heddle::mutex> lk(m);
      const bool got = cv.wait_until(lk, heddle::chrono::steady_clock::now() + 30ms, [&] { return ready; });
      HEDDLE_ASSERT(got == ready);
      ++(got ? satisfied : expired);
    }
    notifier.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(satisfied, 0);
  EXPECT_GT(expired, 0);
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

TEST(sync_condition_variable, waiting_without_holding_the_mutex_is_misuse) {
  EXPECT_EQ(expect_misuse([] {
              heddle::mutex m;
              heddle::condition_variable cv;
              heddle::unique_lock lk(m, heddle::defer_lock);
              cv.wait(lk);
            }).message,
            "wait on a heddle::condition_variable without holding its mutex: the lock does not own it (std "
            "requires the waiter to hold the lock)");
  EXPECT_EQ(expect_misuse([] {
              heddle::mutex m;
              heddle::condition_variable_any cv;
              cv.wait(m);
            }).message,
            "wait on a heddle::condition_variable_any without holding its mutex: the caller (operation 1) does "
            "not hold it (std requires the waiter to hold the lock)");
  EXPECT_EQ(expect_misuse([] {
              heddle::shared_mutex m;
              heddle::condition_variable_any cv;
              m.lock();
              std::shared_lock<heddle::shared_mutex> lk(m, std::adopt_lock);
              (void)cv.wait_for(lk, 1s);
            }).message,
            "wait on a heddle::condition_variable_any without holding its mutex: the caller (operation 1) does "
            "not hold it (std requires the waiter to hold the lock)");
}

TEST(sync_condition_variable, destroying_a_condition_variable_with_waiters_is_misuse) {
  auto bug = expect_misuse([] {
    heddle::mutex m;
    auto cv = std::make_unique<heddle::condition_variable>();
    bool waiting = false;
    heddle::thread t([&] {
      heddle::unique_lock lk(m);
      waiting = true;
      cv->wait(lk);
    });
    for (bool blocked = false; !blocked; heddle::this_thread::yield()) {
      heddle::lock_guard g(m);
      blocked = waiting;
    }
    cv.reset();
    t.detach();
  });
  EXPECT_EQ(bug.message,
            "destroying a heddle::condition_variable while 1 operation(s) wait on it (notify them first)");
}

TEST(sync_condition_variable, destroying_after_notifying_every_waiter_is_fine) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::mutex m;
    auto cv = std::make_unique<heddle::condition_variable>();
    bool go = false;
    heddle::thread t([&, c = cv.get()] {
      heddle::unique_lock lk(m);
      c->wait(lk, [&] { return go; });
    });
    {
      heddle::lock_guard g(m);
      go = true;
      cv->notify_all();
      cv.reset();  // the waiter may still be re-acquiring m: allowed by std
    }
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(sync_condition_variable, stop_token_wait_returns_false_when_stop_is_requested) {
  int stopped = 0, satisfied = 0;
  auto r = heddle::explore(quiet({.iterations = 2000}), [&] {
    heddle::mutex m;
    heddle::condition_variable_any cv;
    heddle::stop_source source;
    bool ready = false;
    heddle::thread waiter([&] {
      heddle::unique_lock lk(m);
      const bool got = cv.wait(lk, source.get_token(), [&] { return ready; });
      HEDDLE_ASSERT(got == ready);
      ++(got ? satisfied : stopped);
    });
    heddle::thread setter([&] {
      heddle::lock_guard g(m);
      ready = true;
      cv.notify_all();
    });
    source.request_stop();
    waiter.join();
    setter.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(stopped, 0);
  EXPECT_GT(satisfied, 0);
}

TEST(sync_condition_variable, stop_token_timed_wait_explores_stop_and_timeout) {
  int stopped = 0, timed_out = 0;
  auto r = heddle::explore(quiet({.iterations = 1000}), [&] {
    heddle::mutex m;
    heddle::condition_variable_any cv;
    heddle::stop_source source;
    heddle::thread waiter([&] {
      heddle::unique_lock lk(m);
      const auto start = heddle::chrono::steady_clock::now();
      HEDDLE_ASSERT(!cv.wait_for(lk, source.get_token(), 10ms, [] { return false; }));
      ++(heddle::chrono::steady_clock::now() - start >= 10ms ? timed_out : stopped);
    });
    source.request_stop();
    waiter.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(stopped, 0);
  EXPECT_GT(timed_out, 0);
}

TEST(sync_condition_variable, stale_state_from_an_unwound_iteration_does_not_poison_the_next) {
  static heddle::mutex m;
  static heddle::condition_variable cv;
  auto stuck = heddle::explore(quiet({.iterations = 1, .spurious_wakeups = false}), [] {
    heddle::unique_lock lk(m);
    cv.wait(lk);  // nobody notifies: a deadlock with `m` released, the waiter unwound
  });
  ASSERT_TRUE(stuck.bug);
  EXPECT_EQ(stuck.bug->kind, heddle::bug_kind::deadlock);
  auto clean = heddle::explore(quiet({.iterations = 500}), [] {
    bool ready = false;
    heddle::thread t([&] {
      heddle::lock_guard g(m);
      ready = true;
      cv.notify_one();
    });
    heddle::unique_lock lk(m);
    cv.wait(lk, [&] { return ready; });
    lk.unlock();
    t.join();
  });
  EXPECT_TRUE(clean) << clean.report;
}

TEST(sync_condition_variable, outside_control_it_behaves_like_std) {
  heddle::mutex m;
  heddle::condition_variable cv;
  heddle::condition_variable_any any;
  int slot = 0;
  long sum = 0;
  std::thread consumer([&] {
    for (int i = 1; i <= 1000; ++i) {
      std::unique_lock<heddle::mutex> lk(m);
      cv.wait(lk, [&] { return slot != 0; });
      sum += slot;
      slot = 0;
      any.notify_one();
    }
  });
  for (int i = 1; i <= 1000; ++i) {
    heddle::unique_lock lk(m);
    any.wait(lk, [&] { return slot == 0; });
    slot = i;
    cv.notify_one();
  }
  consumer.join();
  EXPECT_EQ(sum, 500500);
  heddle::unique_lock lk(m);
  EXPECT_EQ(cv.wait_for(lk, 1ms), std::cv_status::timeout);
  EXPECT_FALSE(any.wait_for(lk, 1ms, [] { return false; }));
}

TEST(sync_condition_variable, outside_control_a_stop_request_ends_a_stop_token_wait) {
  heddle::mutex m;
  heddle::condition_variable_any cv;
  heddle::stop_source source;
  std::thread waiter([&] {
    heddle::unique_lock lk(m);
    EXPECT_FALSE(cv.wait(lk, source.get_token(), [] { return false; }));
  });
  std::this_thread::sleep_for(5ms);
  source.request_stop();
  waiter.join();
  heddle::unique_lock lk(m);
  EXPECT_FALSE(cv.wait_for(lk, source.get_token(), 1h, [] { return false; }));
  heddle::stop_source fresh;
  EXPECT_FALSE(cv.wait_for(lk, fresh.get_token(), 1ms, [] { return false; }));
}

}  // namespace
