// pthread_once under control: the first caller runs the routine while later
// callers wait on the once object's resource; a routine that is cancelled or
// exits by exception leaves the once object not done, as POSIX requires.
//
// The state is the once control word's own, as in glibc: 0 not run, bit 0
// (in progress) while a routine runs, bit 1 (done) after, so an object set up
// by PTHREAD_ONCE_INIT or std::once_flag's constructor in memory that held a
// finished once object before (freed and handed out again by malloc) is a new,
// not-run one, and one completed outside control is done. Only the waiters'
// resource and who runs the routine live in a side table keyed by address.
//
// std::call_once passes its callable through two thread_local variables of
// libstdc++ that __once_proxy reads. Under the fibers backend all operations
// share one OS thread, so another call_once may overwrite them at a
// scheduling point; they are saved at entry and put back before the routine
// runs.
#include <mutex>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

struct once_model {
  resource res{object_kind::once_flag};
  operation_id runner = 0;  // of the routine in progress, if any
};

side_table<once_model>& onces() {
  static side_table<once_model> table;
  return table;
}

// glibc's bits of the once control word (nptl/pthread_once.c).
constexpr int once_in_progress = 1;
constexpr int once_done = 2;

}  // namespace

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, pthread_once, (pthread_once_t * once, void (*routine)())) {
  if (!controlled()) return HEDDLE_REAL(pthread_once)(once, routine);
  void* const callable = std::__once_callable;
  void (*const call)() = std::__once_call;
  heddle::rt::once_model* m = heddle::rt::onces().find(once);
  // Done before this iteration looked at it (outside control): nothing to order.
  if (m == nullptr && (__atomic_load_n(once, __ATOMIC_ACQUIRE) & heddle::rt::once_done) != 0) return 0;
  if (m == nullptr) m = &heddle::rt::onces().emplace(once);
  heddle::scheduling_point(heddle::point_kind::acquire, m->res, {});
  const heddle::operation_id me = heddle::current_operation();
  while ((__atomic_load_n(once, __ATOMIC_ACQUIRE) & heddle::rt::once_in_progress) != 0) {
    if (m->runner == me && !heddle::unwinding())
      heddle::rt::report_self_deadlock("pthread_once called again from its own init routine (" +
                                       heddle::rt::describe(me) + "): self-deadlock");
    heddle::wait(m->res, {});
  }
  if ((__atomic_load_n(once, __ATOMIC_ACQUIRE) & heddle::rt::once_done) != 0) {
    heddle::hb_acquire(m->res);  // the routine's effects are visible to every later caller
    return 0;
  }
  __atomic_store_n(once, heddle::rt::once_in_progress, __ATOMIC_RELEASE);
  m->runner = me;
  try {
    std::__once_callable = callable;
    std::__once_call = call;
    routine();
  } catch (...) {
    __atomic_store_n(once, 0, __ATOMIC_RELEASE);
    m->runner = 0;
    heddle::signal(m->res);
    throw;
  }
  heddle::hb_release(m->res);
  __atomic_store_n(once, heddle::rt::once_done, __ATOMIC_RELEASE);
  m->runner = 0;
  heddle::signal(m->res);
  return 0;
}
