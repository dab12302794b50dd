// Races on plain shared memory: lost update, check-then-act, order and
// atomicity violations, double-checked locking with a plain flag.
//
// Each shared access is its own scheduling point (plain_access.hpp).
#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "plain_access.hpp"
#include "programs.hpp"

namespace heddle_bugs {
namespace {

// --- 1. lost update: counter = counter + 1 is a read and a write ---------

void lost_update_buggy() {
  int counter = 0;
  auto increment = [&] { write(counter, read(counter) + 1); };
  heddle::thread a(increment), b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2);
}

void lost_update_fixed() {
  int counter = 0;
  heddle::mutex m;
  auto increment = [&] {
    m.lock();
    write(counter, read(counter) + 1);
    m.unlock();
  };
  heddle::thread a(increment), b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2);
}

// --- 2. check-then-act lazy initialisation --------------------------------
// Both callers may see "not yet created" and both create the singleton.

struct lazy_singleton {
  bool created = false;
  int constructions = 0;
};

void lazy_init_buggy() {
  lazy_singleton s;
  auto get = [&] {
    if (!read(s.created)) {
      write(s.constructions, read(s.constructions) + 1);
      write(s.created, true);
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
    m.lock();
    if (!read(s.created)) {
      write(s.constructions, read(s.constructions) + 1);
      write(s.created, true);
    }
    m.unlock();
  };
  heddle::thread a(get), b(get);
  a.join();
  b.join();
  HEDDLE_ASSERT_MSG(s.constructions == 1, "the lazily initialised object was constructed twice");
}

// --- 6. order violation: a worker uses state main has not initialised yet ---

struct config {
  bool initialised = false;
  int port = 0;
};

void order_violation_buggy() {
  config c;
  heddle::thread worker([&] {
    HEDDLE_ASSERT_MSG(read(c.initialised), "the worker used the configuration before main initialised it");
    (void)read(c.port);
  });
  write(c.port, 8080);
  write(c.initialised, true);
  worker.join();
}

void order_violation_fixed() {
  config c;
  write(c.port, 8080);
  write(c.initialised, true);  // before the worker exists: thread creation orders it
  heddle::thread worker([&] {
    HEDDLE_ASSERT_MSG(read(c.initialised), "the worker used the configuration before main initialised it");
    (void)read(c.port);
  });
  worker.join();
}

// --- 7. atomicity violation: a transfer locks each account separately ------
// An auditor that locks both accounts can see the money in flight.

struct accounts {
  heddle::mutex a_lock, b_lock;
  int a = 100, b = 100;
};

void audit(accounts& acc) {
  acc.a_lock.lock();
  acc.b_lock.lock();
  const int total = read(acc.a) + read(acc.b);
  acc.b_lock.unlock();
  acc.a_lock.unlock();
  HEDDLE_ASSERT_MSG(total == 200, "the auditor saw a total other than 200: money is not conserved");
}

void transfer_buggy() {
  accounts acc;
  heddle::thread transfer([&] {
    heddle::this_thread::set_name("transfer");
    acc.a_lock.lock();
    write(acc.a, read(acc.a) - 30);
    acc.a_lock.unlock();
    acc.b_lock.lock();
    write(acc.b, read(acc.b) + 30);
    acc.b_lock.unlock();
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
    acc.a_lock.lock();  // both locks, in the auditor's order, for the whole transfer
    acc.b_lock.lock();
    write(acc.a, read(acc.a) - 30);
    write(acc.b, read(acc.b) + 30);
    acc.b_lock.unlock();
    acc.a_lock.unlock();
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

struct widget {
  bool published = false;
  int value = 0;
};

void double_checked_buggy() {
  widget w;
  heddle::mutex m;
  auto use = [&] {
    if (!read(w.published)) {
      m.lock();
      if (!read(w.published)) {
        write(w.published, true);  // published first...
        write(w.value, 42);        // ...initialised after
      }
      m.unlock();
    }
    HEDDLE_ASSERT_MSG(read(w.value) == 42, "a reader saw the widget published but not initialised");
  };
  heddle::thread a(use), b(use);
  a.join();
  b.join();
}

void double_checked_fixed() {
  widget w;
  heddle::mutex m;
  auto use = [&] {
    if (!read(w.published)) {
      m.lock();
      if (!read(w.published)) {
        write(w.value, 42);        // initialised first...
        write(w.published, true);  // ...published after (a release store in real code)
      }
      m.unlock();
    }
    HEDDLE_ASSERT_MSG(read(w.value) == 42, "a reader saw the widget published but not initialised");
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
