// Libraries whose threads heddle cannot see whole (known_libraries.hpp).
//
// Found on the third-party audit of 2026-11-29:
// - libgomp (GCC's OpenMP runtime): the main thread writes a worker's next
//   task into the worker's gomp_thread, a thread_local it reaches by pointer;
//   on fibers that write reached the main thread's own copy and a correct
//   program ended in a deadlock. Its locks, critical sections and barriers
//   are atomics in the (uninstrumented) library: the race detector reported
//   the counter an `omp critical` protects as a race.
// - liburcu (userspace RCU, every flavour): each reader thread registers its
//   thread_local reader record in a list that synchronize_rcu walks; on fibers
//   the records of all threads lay at one address, the list was corrupt and
//   main crashed (SIGSEGV) at iteration 0. rcu_assign_pointer and
//   rcu_xchg_pointer are inline assembly in its headers (Debian's 0.13): the
//   race detector reported the fields of a published node as racing with
//   their readers.
// - libtbb (oneTBB's task scheduler; its containers are in headers, and
//   instrumented): a task's partitioner state, written by the worker that
//   split it and read by the thread that joined it, was reported as a race
//   in the first iteration of a parallel_reduce; the library hands tasks
//   over with atomics of its own.
// - libpthreadpool (Google's, under XNNPACK): what a worker wrote in a
//   parallelize_1d task was reported as racing with main's read after the
//   call returned; the pool counts finished items with atomics of its own.
//
// Found on the second audit, the same day:
// - Concurrency Kit (libck): its atomics (ck_pr_*) are inline assembly in its
//   headers, compiled into the program and invisible to the instrumentation:
//   a counter a ck_spinlock_fas protects was reported as a race at iteration
//   0, and a thread spinning on the lock never reached a scheduling point (a
//   hang). Found by libck.so (ck_epoch, ck_hs, ...); a program that uses
//   only its headers links nothing heddle could find (docs/pushbutton.md).
// - GLib (libglib-2.0): a GMutex is an atomic in the library, which calls the
//   futex only when a thread must wait (and GLib calls it within itself, not
//   through an interposable symbol); a counter every GThreadPool job added to
//   under a GMutex was reported as a data race at iteration 0.
#include "rt/known_libraries.hpp"

#include <link.h>

#include <cstring>

namespace heddle::rt {

namespace {

struct entry {
  const char* file;  // a prefix of the file name
  const char* what;
  const char* hidden_order;
  bool thread_local_by_pointer;
  bool invisible_synchronization;
};

constexpr entry table[] = {
    {"libgomp.so", "libgomp (OpenMP)", "its critical sections, locks and barriers", true, true},
    {"liburcu", "liburcu (userspace RCU)", "rcu_assign_pointer and its grace periods", true, true},
    {"libtbb.so", "libtbb (oneTBB)", "its task scheduler's hand-offs of tasks between threads", false, true},
    {"libpthreadpool.so", "libpthreadpool (Google's pthreadpool)", "the end of each parallelized loop", false, true},
    {"libck.so", "Concurrency Kit (libck)", "its ck_pr atomics (inline assembly in its headers)", false, true},
    {"libglib-2.0.so", "GLib (libglib-2.0)", "its GMutex, GRWLock, GOnce, GAsyncQueue and GThreadPool", false, true},
};

struct search {
  bool entry::*property;
  known_library found{};
};

int look(dl_phdr_info* info, std::size_t, void* data) {
  auto& s = *static_cast<search*>(data);
  const char* name = info->dlpi_name;
  if (name == nullptr || *name == '\0') return 0;
  const char* base = std::strrchr(name, '/');
  base = base != nullptr ? base + 1 : name;
  for (const entry& e : table) {
    if (!(e.*s.property) || std::strncmp(base, e.file, std::strlen(e.file)) != 0) continue;
    s.found = {name, e.what, e.hidden_order};
    return 1;
  }
  return 0;
}

known_library first_loaded(bool entry::*property) noexcept {
  search s{property};
  ::dl_iterate_phdr(&look, &s);
  return s.found;
}

}  // namespace

known_library thread_local_by_pointer() noexcept { return first_loaded(&entry::thread_local_by_pointer); }

known_library invisible_synchronization() noexcept { return first_loaded(&entry::invisible_synchronization); }

}  // namespace heddle::rt
