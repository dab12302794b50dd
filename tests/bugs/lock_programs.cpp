// Deadlocks and misuse with mutexes and threads: ABBA lock order, dining
// philosophers, a join that waits on a thread waiting for the joiner, and
// unlocking a mutex another thread owns.
#include <array>

#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "programs.hpp"

namespace heddle_bugs {
namespace {

// --- 3. ABBA: two threads take the same two locks in opposite orders -------

void abba_buggy() {
  heddle::mutex a, b;
  int shared_total = 0;
  heddle::thread t([&] {
    heddle::this_thread::set_name("b_then_a");
    b.lock();
    a.lock();
    ++shared_total;
    a.unlock();
    b.unlock();
  });
  a.lock();
  b.lock();
  ++shared_total;
  b.unlock();
  a.unlock();
  t.join();
}

void abba_fixed() {
  heddle::mutex a, b;
  int shared_total = 0;
  heddle::thread t([&] {
    heddle::this_thread::set_name("a_then_b");
    a.lock();  // the global order: a before b
    b.lock();
    ++shared_total;
    b.unlock();
    a.unlock();
  });
  a.lock();
  b.lock();
  ++shared_total;
  b.unlock();
  a.unlock();
  t.join();
}

// --- 9. dining philosophers: everyone takes the left fork first ------------

constexpr int philosophers = 3;

template <bool ordered>
void dine() {
  std::array<heddle::mutex, philosophers> forks;
  std::array<int, philosophers> meals{};
  std::array<heddle::thread, philosophers> table;
  for (int i = 0; i < philosophers; ++i) {
    table[i] = heddle::thread([&, i] {
      heddle::this_thread::set_name("philosopher " + std::to_string(i));
      const int left = i;
      const int right = (i + 1) % philosophers;
      // The fix breaks the cycle: always take the lower-numbered fork first.
      const int first = ordered ? std::min(left, right) : left;
      const int second = ordered ? std::max(left, right) : right;
      forks[first].lock();
      forks[second].lock();
      ++meals[i];
      forks[second].unlock();
      forks[first].unlock();
    });
  }
  for (auto& p : table) p.join();
}

void dining_buggy() { dine<false>(); }
void dining_fixed() { dine<true>(); }

// --- 13. deadlock through join ---------------------------------------------
// Main joins the worker while holding the lock the worker needs to finish.

void join_deadlock_buggy() {
  heddle::mutex m;
  int results = 0;
  heddle::thread worker([&] {
    heddle::this_thread::set_name("worker");
    m.lock();
    ++results;
    m.unlock();
  });
  m.lock();
  worker.join();  // waits for the worker, which may wait for m
  ++results;
  m.unlock();
}

void join_deadlock_fixed() {
  heddle::mutex m;
  int results = 0;
  heddle::thread worker([&] {
    heddle::this_thread::set_name("worker");
    m.lock();
    ++results;
    m.unlock();
  });
  worker.join();  // join first, lock after
  m.lock();
  ++results;
  m.unlock();
}

// --- 14. unlocking a mutex one does not own ---------------------------------
// A "best effort" flush: try_lock may fail, but the unlock is unconditional.

void unlock_not_owned_buggy() {
  heddle::mutex m;
  int flushed = 0;
  auto flush = [&] {
    (void)m.try_lock();  // bug: ignores the result
    ++flushed;
    m.unlock();
  };
  heddle::thread a(flush), b(flush);
  a.join();
  b.join();
}

void unlock_not_owned_fixed() {
  heddle::mutex m;
  int flushed = 0;
  auto flush = [&] {
    if (m.try_lock()) {
      ++flushed;
      m.unlock();
    }
  };
  heddle::thread a(flush), b(flush);
  a.join();
  b.join();
}

}  // namespace

std::vector<program> lock_programs() {
  using heddle::bug_kind;
  return {
      {.name = "abba_deadlock",
       .description = "two threads lock the same two mutexes in opposite orders",
       .buggy = abba_buggy,
       .fixed = abba_fixed,
       .kind = bug_kind::deadlock,
       .message = "waits for mutex",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "dining_philosophers",
       .description = "three philosophers each take the left fork first and wait for the right one",
       .buggy = dining_buggy,
       .fixed = dining_fixed,
       .kind = bug_kind::deadlock,
       .message = "(philosopher 0) waits for mutex",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "join_deadlock",
       .description = "main joins a worker while holding the mutex the worker needs",
       .buggy = join_deadlock_buggy,
       .fixed = join_deadlock_fixed,
       .kind = bug_kind::deadlock,
       .message = "(worker) to finish (join)",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "unlock_not_owned",
       .description = "a thread whose try_lock failed unlocks the mutex the other thread holds",
       .buggy = unlock_not_owned_buggy,
       .fixed = unlock_not_owned_fixed,
       .kind = bug_kind::api_misuse,
       .message = "unlock of a heddle::mutex owned by operation",
       .strategy = "random",
       .iterations = 10'000},
  };
}

}  // namespace heddle_bugs
