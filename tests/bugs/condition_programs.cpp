// Condition-variable waits: a lost wake-up, `if` instead of `while` around a
// wait, and one condition variable shared by two predicates with notify_one.
//
// heddle's condition variable wakes only operations already waiting when a
// notify runs (a notify before the wait is lost) and may wake a waiter
// spuriously; notify_one lets the strategy choose the waiter.
#include <deque>

#include "heddle/condition_variable.hpp"
#include "heddle/explore.hpp"
#include "heddle/lock.hpp"
#include "heddle/mutex.hpp"
#include "heddle/thread.hpp"
#include "programs.hpp"

namespace heddle_bugs {
namespace {

using unique_lock = heddle::unique_lock<heddle::mutex>;

// --- 4. lost wake-up: notify before wait, no predicate ----------------------
// The consumer assumes the notify comes after it starts waiting.

void lost_wakeup_buggy() {
  heddle::mutex m;
  heddle::condition_variable cv;
  bool ready = false;  // guarded by m
  heddle::thread consumer([&] {
    heddle::this_thread::set_name("consumer");
    unique_lock lk(m);
    cv.wait(lk);  // no predicate: a notify that came first is lost
  });
  heddle::thread producer([&] {
    heddle::this_thread::set_name("producer");
    {
      heddle::lock_guard<heddle::mutex> guard(m);
      ready = true;
    }
    cv.notify_one();
  });
  producer.join();
  consumer.join();
}

void lost_wakeup_fixed() {
  heddle::mutex m;
  heddle::condition_variable cv;
  bool ready = false;
  heddle::thread consumer([&] {
    heddle::this_thread::set_name("consumer");
    unique_lock lk(m);
    cv.wait(lk, [&] { return ready; });  // the state, not the notify, says when to go on
  });
  heddle::thread producer([&] {
    heddle::this_thread::set_name("producer");
    {
      heddle::lock_guard<heddle::mutex> guard(m);
      ready = true;
    }
    cv.notify_one();
  });
  producer.join();
  consumer.join();
}

// --- 5. `if` instead of `while` around a condition wait -------------------------
// Two consumers: one is notified, but the other takes the item before the
// notified one re-acquires the lock (or the wake-up was spurious).

template <bool loop>
void work_queue() {
  heddle::mutex m;
  heddle::condition_variable cv;
  std::deque<int> items;  // guarded by m
  auto consume = [&] {
    unique_lock lk(m);
    if constexpr (loop) {
      while (items.empty()) cv.wait(lk);
    } else {
      if (items.empty()) cv.wait(lk);
    }
    HEDDLE_ASSERT_MSG(!items.empty(), "a consumer woke up to an empty queue: its item was taken first");
    items.pop_front();
  };
  heddle::thread c1(consume), c2(consume);
  for (int i = 0; i < 2; ++i) {
    {
      heddle::lock_guard<heddle::mutex> guard(m);
      items.push_back(i);
    }
    cv.notify_one();
  }
  c1.join();
  c2.join();
}

void if_not_while_buggy() { work_queue<false>(); }
void if_not_while_fixed() { work_queue<true>(); }

// --- 10. one condition variable for "not full" and "not empty" ----------------
// A one-slot buffer, one producer of two items, two consumers. With a single
// condition variable, notify_one can wake a consumer when only the producer can
// make progress (or the reverse); the woken one waits again and everyone sleeps.

template <bool two_conditions>
void bounded_buffer() {
  heddle::mutex m;
  heddle::condition_variable not_full, not_empty_own;
  heddle::condition_variable& not_empty = two_conditions ? not_empty_own : not_full;
  std::deque<int> slots;  // guarded by m; capacity 1
  auto consume = [&] {
    heddle::this_thread::set_name("consumer");
    unique_lock lk(m);
    while (slots.empty()) not_empty.wait(lk);
    slots.pop_front();
    not_full.notify_one();
  };
  heddle::thread c1(consume), c2(consume);
  heddle::thread producer([&] {
    heddle::this_thread::set_name("producer");
    for (int i = 0; i < 2; ++i) {
      unique_lock lk(m);
      while (slots.size() == 1) not_full.wait(lk);
      slots.push_back(i);
      not_empty.notify_one();
    }
  });
  producer.join();
  c1.join();
  c2.join();
}

void one_condition_buggy() { bounded_buffer<false>(); }
void one_condition_fixed() { bounded_buffer<true>(); }

}  // namespace

std::vector<program> condition_programs() {
  using heddle::bug_kind;
  return {
      {.name = "lost_wakeup",
       .description = "the producer notifies before the consumer waits; the wait has no predicate",
       .buggy = lost_wakeup_buggy,
       .fixed = lost_wakeup_fixed,
       .kind = bug_kind::deadlock,
       .message = "(consumer) waits for condition_variable",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "if_instead_of_while_wait",
       .description = "a consumer checks its condition with `if`, so it proceeds after another took the item",
       .buggy = if_not_while_buggy,
       .fixed = if_not_while_fixed,
       .kind = bug_kind::assertion,
       .message = "woke up to an empty queue",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "bounded_buffer_one_condition",
       .description = "one condition variable for not-full and not-empty; notify_one wakes the wrong side",
       .buggy = one_condition_buggy,
       .fixed = one_condition_fixed,
       .kind = bug_kind::deadlock,
       .message = "waits for condition_variable",
       .strategy = "random",
       .iterations = 10'000},
  };
}

}  // namespace heddle_bugs
