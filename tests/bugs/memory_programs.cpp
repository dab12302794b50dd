// Races on plain shared memory: lost update, check-then-act, order and
// atomicity violations, double-checked locking with a plain flag.
//
// Plain memory is heddle::shared<T>: each load and store is its own scheduling
// point, so the interleavings between a read and the write that depends on it
// are explored. Fixed twins use heddle::atomic<T> or a lock.
#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/lock.hpp"
#include "heddle/mutex.hpp"
#include "heddle/shared.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "programs.hpp"

namespace heddle_bugs {
namespace {

// --- 1. lost update: counter++ on plain memory is a read and a write --------

void lost_update_buggy() {
  heddle::shared<int> counter{0};
  auto increment = [&] { counter++; };
  heddle::thread a(increment), b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2);
}

void lost_update_fixed() {
  heddle::atomic<int> counter{0};
  auto increment = [&] { counter++; };  // one atomic read-modify-write
  heddle::thread a(increment), b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2);
}

// --- 2. check-then-act lazy initialisation --------------------------------
// Both callers may see "not yet created" and both create the singleton.

struct lazy_singleton {
  heddle::shared<bool> created{false};
  heddle::shared<int> constructions{0};
};

void lazy_init_buggy() {
  lazy_singleton s;
  auto get = [&] {
    if (!s.created) {
      s.constructions++;
      s.created = true;
    }
  };
  heddle::thread a(get), b(get);
  a.join();
  b.join();
  HEDDLE_ASSERT_MSG(s.constructions == 1, "the lazily initialised object was constructed twice");
}

void lazy_init_fixed() {
  lazy_singleton s;
  heddle::mutex m;
  auto get = [&] {
    heddle::lock_guard<heddle::mutex> guard(m);  // check and act in one critical section
    if (!s.created) {
      s.constructions++;
      s.created = true;
    }
  };
  heddle::thread a(get), b(get);
  a.join();
  b.join();
  HEDDLE_ASSERT_MSG(s.constructions == 1, "the lazily initialised object was constructed twice");
}

// --- 6. order violation: a worker uses state main has not initialised yet ---

struct config {
  heddle::shared<bool> initialised{false};
  heddle::shared<int> port{0};
};

void order_violation_buggy() {
  config c;
  heddle::thread worker([&] {
    HEDDLE_ASSERT_MSG(c.initialised, "the worker used the configuration before main initialised it");
    (void)c.port.load();
  });
  c.port = 8080;
  c.initialised = true;
  worker.join();
}

void order_violation_fixed() {
  config c;
  c.port = 8080;
  c.initialised = true;  // before the worker exists: creating a thread orders it
  heddle::thread worker([&] {
    HEDDLE_ASSERT_MSG(c.initialised, "the worker used the configuration before main initialised it");
    (void)c.port.load();
  });
  worker.join();
}

// --- 7. atomicity violation: a transfer locks each account separately ------
// An auditor that locks both accounts can see the money in flight.

struct accounts {
  heddle::mutex a_lock, b_lock;
  heddle::shared<int> a{100}, b{100};
};

void audit(accounts& acc) {
  heddle::scoped_lock both(acc.a_lock, acc.b_lock);
  const int total = acc.a.load() + acc.b.load();
  HEDDLE_ASSERT_MSG(total == 200, "the auditor saw a total other than 200: money is not conserved");
}

void transfer_buggy() {
  accounts acc;
  heddle::thread transfer([&] {
    heddle::this_thread::set_name("transfer");
    {
      heddle::lock_guard<heddle::mutex> guard(acc.a_lock);
      acc.a -= 30;
    }
    {
      heddle::lock_guard<heddle::mutex> guard(acc.b_lock);
      acc.b += 30;
    }
  });
  heddle::thread auditor([&] {
    heddle::this_thread::set_name("auditor");
    audit(acc);
  });
  transfer.join();
  auditor.join();
}

void transfer_fixed() {
  accounts acc;
  heddle::thread transfer([&] {
    heddle::this_thread::set_name("transfer");
    heddle::scoped_lock both(acc.a_lock, acc.b_lock);  // both accounts for the whole transfer
    acc.a -= 30;
    acc.b += 30;
  });
  heddle::thread auditor([&] {
    heddle::this_thread::set_name("auditor");
    audit(acc);
  });
  transfer.join();
  auditor.join();
}

// --- 8. double-checked locking with a plain flag ---------------------------
// The writer publishes the flag before the object is fully initialised (as a
// compiler or CPU may reorder two plain stores), so a reader that skips the
// lock on the fast path sees a half-built object.

void double_checked_buggy() {
  heddle::shared<bool> published{false};
  heddle::shared<int> value{0};
  heddle::mutex m;
  auto use = [&] {
    if (!published) {
      heddle::lock_guard<heddle::mutex> guard(m);
      if (!published) {
        published = true;  // published first...
        value = 42;        // ...initialised after
      }
    }
    HEDDLE_ASSERT_MSG(value == 42, "a reader saw the widget published but not initialised");
  };
  heddle::thread a(use), b(use);
  a.join();
  b.join();
}

void double_checked_fixed() {
  heddle::atomic<bool> published{false};
  heddle::shared<int> value{0};
  heddle::mutex m;
  auto use = [&] {
    if (!published.load(std::memory_order_acquire)) {
      heddle::lock_guard<heddle::mutex> guard(m);
      if (!published.load(std::memory_order_relaxed)) {
        value = 42;                                         // initialised first...
        published.store(true, std::memory_order_release);  // ...then published
      }
    }
    HEDDLE_ASSERT_MSG(value == 42, "a reader saw the widget published but not initialised");
  };
  heddle::thread a(use), b(use);
  a.join();
  b.join();
}

}  // namespace

std::vector<program> memory_programs() {
  using heddle::bug_kind;
  return {
      {.name = "lost_update_counter",
       .description = "two threads increment a counter with a separate read and write; one update is lost",
       .buggy = lost_update_buggy,
       .fixed = lost_update_fixed,
       .kind = bug_kind::assertion,
       .message = "assertion failed: counter == 2",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "check_then_act_lazy_init",
       .description = "two callers both see the singleton missing and both construct it",
       .buggy = lazy_init_buggy,
       .fixed = lazy_init_fixed,
       .kind = bug_kind::assertion,
       .message = "constructed twice",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "order_violation_use_before_init",
       .description = "a worker reads the configuration before main has initialised it",
       .buggy = order_violation_buggy,
       .fixed = order_violation_fixed,
       .kind = bug_kind::assertion,
       .message = "before main initialised it",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "atomicity_violation_transfer",
       .description = "a transfer locks each account separately; an auditor sees money in flight",
       .buggy = transfer_buggy,
       .fixed = transfer_fixed,
       .kind = bug_kind::assertion,
       .message = "money is not conserved",
       .strategy = "random",
       .iterations = 10'000},
      {.name = "double_checked_locking_plain_flag",
       .description = "the flag is published before the object is initialised; the fast path reads it unlocked",
       .buggy = double_checked_buggy,
       .fixed = double_checked_fixed,
       .kind = bug_kind::assertion,
       .message = "published but not initialised",
       .strategy = "random",
       .iterations = 10'000},
  };
}

}  // namespace heddle_bugs
