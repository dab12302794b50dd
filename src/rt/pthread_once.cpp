// pthread_once under control: the first caller runs the routine while later
// callers wait on the once object's resource; a routine that is cancelled or
// exits by exception leaves the once object not done, as POSIX requires. An
// object completed outside control (glibc marks it done with bit 2) is done.
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
  bool running = false;
  bool done = false;
  operation_id runner = 0;
};

side_table<once_model>& onces() {
  static side_table<once_model> table;
  return table;
}

constexpr int glibc_once_done = 2;

}  // namespace

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, pthread_once, (pthread_once_t * once, void (*routine)())) {
  if (!controlled()) return HEDDLE_REAL(pthread_once)(once, routine);
  void* const callable = std::__once_callable;
  void (*const call)() = std::__once_call;
  if ((__atomic_load_n(once, __ATOMIC_ACQUIRE) & heddle::rt::glibc_once_done) != 0) return 0;
  heddle::rt::once_model* m = heddle::rt::onces().find(once);
  if (m == nullptr) m = &heddle::rt::onces().emplace(once);
  heddle::scheduling_point(heddle::point_kind::acquire, m->res, {});
  const heddle::operation_id me = heddle::current_operation();
  while (m->running) {
    if (m->runner == me && !heddle::unwinding())
      heddle::rt::report_self_deadlock("pthread_once called again from its own init routine (" +
                                       heddle::rt::describe(me) + "): self-deadlock");
    heddle::wait(m->res, {});
  }
  if (m->done) {
    heddle::hb_acquire(m->res);  // the routine's effects are visible to every later caller
    return 0;
  }
  m->running = true;
  m->runner = me;
  try {
    std::__once_callable = callable;
    std::__once_call = call;
    routine();
  } catch (...) {
    m->running = false;
    heddle::signal(m->res);
    throw;
  }
  m->running = false;
  heddle::hb_release(m->res);
  m->done = true;
  heddle::signal(m->res);
  return 0;
}
