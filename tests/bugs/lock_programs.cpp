// Deadlocks and misuse with locks, semaphores and threads: ABBA lock order,
// dining philosophers, a join that waits on a thread waiting for the joiner,
// unlocking a mutex another thread owns, releasing a binary semaphore twice,
// and upgrading a shared lock in place.
#include <algorithm>
#include <array>
#include <string>

#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/semaphore.hpp"
#include "heddle/shared.hpp"
#include "heddle/shared_mutex.hpp"
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

// --- 16. a binary semaphore released past its maximum ----------------------------
// Two workers each signal "done" on a binary semaphore; when both finish before
// main takes the first signal, the second release exceeds max() (undefined in std).

template <std::ptrdiff_t max>
void signal_done() {
  heddle::counting_semaphore<max> done{0};
  auto work = [&] { done.release(); };
  heddle::thread a(work), b(work);
  done.acquire();
  done.acquire();
  a.join();
  b.join();
}

void semaphore_overflow_buggy() { signal_done<1>(); }
void semaphore_overflow_fixed() { signal_done<2>(); }  // room for both signals

// --- 17. upgrading a shared lock in place -------------------------------------
// A reader that finds its cache stale takes the exclusive lock while still
// holding the shared one: a self-deadlock in std, misuse in heddle. It happens
// only when the writer ran first.

template <bool release_first>
void refresh_cache() {
  heddle::shared_mutex rw;
  heddle::shared<int> version{0};
  heddle::shared<int> cached{0};
  heddle::thread writer([&] {
    heddle::this_thread::set_name("writer");
    rw.lock();
    version = 1;
    rw.unlock();
  });
  heddle::thread reader([&] {
    heddle::this_thread::set_name("reader");
    rw.lock_shared();
    const bool stale = cached != version;
    if (!release_first && stale) {
      rw.lock();  // upgrade while holding shared
      cached = version.load();
      rw.unlock();
    }
    rw.unlock_shared();
    if (release_first && stale) {
      rw.lock();  // release shared, take exclusive, re-check
      if (cached != version) cached = version.load();
      rw.unlock();
    }
  });
  writer.join();
  reader.join();
}

void rwlock_upgrade_buggy() { refresh_cache<false>(); }
void rwlock_upgrade_fixed() { refresh_cache<true>(); }

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
      {.name = "binary_semaphore_released_twice",
       .description = "two workers release a binary semaphore before main acquires it; the count exceeds max()",
       .buggy = semaphore_overflow_buggy,
       .fixed = semaphore_overflow_fixed,
       .kind = bug_kind::api_misuse,
       .message = "the count would exceed max()",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "shared_lock_upgrade",
       .description = "a reader takes the exclusive lock while holding the shared one after a writer ran",
       .buggy = rwlock_upgrade_buggy,
       .fixed = rwlock_upgrade_fixed,
       .kind = bug_kind::api_misuse,
       .message = "already holds shared",
       .strategy = "random",
       .iterations = 10'000},
  };
}

}  // namespace heddle_bugs
