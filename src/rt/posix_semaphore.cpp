// Unnamed POSIX semaphores under control: sem_wait is a scheduling point that
// blocks while the count is zero, sem_post one that wakes the waiters (they
// re-check), and a post happens before the wait it lets through;
// sem_timedwait runs on virtual time (CLOCK_REALTIME, or sem_clockwait's
// clock). A semaphore the model has not seen (initialized before control, or
// a named one from sem_open) starts from the count the C library reports.
// Results and errno as in glibc: EAGAIN, ETIMEDOUT, EINVAL, EOVERFLOW.
// The blocking waits are cancellation points: on entry, and while blocked (a
// pthread_cancel wakes the waiter, which acts on it without taking a unit).
// The wait loop is here rather than in heddle's counting_semaphore model
// because a cancel must be able to end it.
#include <semaphore.h>

#include <cerrno>
#include <climits>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

struct semaphore_model {
  explicit semaphore_model(unsigned value) : count(value) {}
  resource waiters{object_kind::semaphore};
  unsigned count;
};

side_table<semaphore_model>& semaphores() {
  static side_table<semaphore_model> table;
  return table;
}

semaphore_model& model_of(sem_t* s) {
  if (semaphore_model* m = semaphores().find(s)) return *m;
  int value = 0;
  HEDDLE_REAL(sem_getvalue)(s, &value);
  return semaphores().emplace(s, static_cast<unsigned>(value < 0 ? 0 : value));
}

int fail(int error) {
  errno = error;
  return -1;
}

int wait(sem_t* s, bool blocking, std::optional<virtual_time> deadline) {
  if (blocking) cancellation_point();
  semaphore_model& m = model_of(s);
  scheduling_point(point_kind::acquire, m.waiters, {});
  while (m.count == 0) {
    if (!blocking) return fail(EAGAIN);
    if (deadline && *deadline <= now()) return fail(ETIMEDOUT);
    cancellation_point();  // a cancel that came since the entry, before this thread waits
    thread_record& me = self();
    me.waiting_semaphore = &m.waiters;
    const wake_reason why = deadline ? wait_until(m.waiters, *deadline, {}) : heddle::wait(m.waiters, {});
    me.waiting_semaphore = nullptr;
    cancellation_point();
    if (why == wake_reason::timeout && m.count == 0) return fail(ETIMEDOUT);
  }
  --m.count;
  hb_acquire(m.waiters);
  return 0;
}

}  // namespace

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, sem_init, (sem_t * s, int pshared, unsigned value)) {
  if (!controlled()) return HEDDLE_REAL(sem_init)(s, pshared, value);
  if (value > SEM_VALUE_MAX) return heddle::rt::fail(EINVAL);
  heddle::rt::semaphores().emplace(s, value);
  return HEDDLE_REAL(sem_init)(s, pshared, value);
}

HEDDLE_RT_DEFINE(int, sem_destroy, (sem_t * s)) {
  if (!controlled()) return HEDDLE_REAL(sem_destroy)(s);
  heddle::rt::semaphores().erase(s);
  return 0;
}

HEDDLE_RT_DEFINE(int, sem_wait, (sem_t * s)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(sem_wait)(s);
  return heddle::rt::wait(s, true, std::nullopt);
}

HEDDLE_RT_DEFINE(int, sem_trywait, (sem_t * s)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(sem_trywait)(s);
  return heddle::rt::wait(s, false, std::nullopt);
}

HEDDLE_RT_DEFINE(int, sem_timedwait, (sem_t * s, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(sem_timedwait)(s, abstime);
  if (heddle::rt::invalid(*abstime)) return heddle::rt::fail(EINVAL);
  return heddle::rt::wait(s, true, heddle::rt::deadline_at(CLOCK_REALTIME, *abstime));
}

HEDDLE_RT_DEFINE(int, sem_clockwait, (sem_t * s, clockid_t clock, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(sem_clockwait)(s, clock, abstime);
  if (heddle::rt::invalid(*abstime)) return heddle::rt::fail(EINVAL);
  return heddle::rt::wait(s, true, heddle::rt::deadline_at(clock, *abstime));
}

HEDDLE_RT_DEFINE(int, sem_post, (sem_t * s)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(sem_post)(s);
  auto& m = heddle::rt::model_of(s);
  heddle::scheduling_point(heddle::point_kind::signal, m.waiters, {});
  if (m.count >= SEM_VALUE_MAX) return heddle::rt::fail(EOVERFLOW);
  heddle::hb_release(m.waiters);
  ++m.count;
  heddle::signal(m.waiters);
  return 0;
}

HEDDLE_RT_DEFINE(int, sem_getvalue, (sem_t * s, int* value)) {
  if (!controlled()) return HEDDLE_REAL(sem_getvalue)(s, value);
  *value = static_cast<int>(heddle::rt::model_of(s).count);
  return 0;
}
