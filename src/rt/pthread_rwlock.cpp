// Reader-writer locks under control, on heddle's shared lock model
// (detail::shared_state): a writer waits while anyone holds the lock, a
// reader while a writer does; timed locks run on virtual time.
//
// pthread semantics on top: a thread may take the read lock again while it
// holds it (counted here; the model sees one reader); a thread that asks for
// the lock in a way that would wait for itself gets EDEADLK, as from glibc.
// Unlocking a rwlock the caller does not hold is API misuse.
#include <string>

#include "backends/real.hpp"
#include "heddle/shared_mutex.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

constexpr std::string_view type = "pthread rwlock";

struct rwlock_model {
  detail::shared_state state;
  bool initialized = false;
  std::unordered_map<operation_id, unsigned> read_depth;  // read locks each reader holds
};

side_table<rwlock_model>& rwlocks() {
  static side_table<rwlock_model> table;
  return table;
}

rwlock_model& model_of(const void* l) {
  if (rwlock_model* m = rwlocks().find(l)) return *m;
  return rwlocks().emplace(l);
}

int lock(pthread_rwlock_t* l, bool shared, bool blocking, std::optional<virtual_time> deadline) {
  rwlock_model& m = model_of(l);
  const operation_id me = current_operation();
  if (m.state.held_by_caller()) return blocking ? EDEADLK : EBUSY;
  if (m.state.held_shared_by_caller()) {
    if (!shared) return blocking ? EDEADLK : EBUSY;
    ++m.read_depth[me];
    return 0;
  }
  if (!m.state.acquire(type, shared, blocking, deadline, std::source_location{}))
    return deadline ? ETIMEDOUT : EBUSY;
  if (shared) m.read_depth[me] = 1;
  return 0;
}

int unlock(pthread_rwlock_t* l) {
  rwlock_model& m = model_of(l);
  const operation_id me = current_operation();
  if (m.state.held_by_caller()) {
    m.state.release(type, false, std::source_location{});
  } else if (m.state.held_shared_by_caller()) {
    if (--m.read_depth[me] > 0) return 0;
    m.read_depth.erase(me);
    m.state.release(type, true, std::source_location{});
  } else if (!unwinding()) {
    report_misuse("pthread_rwlock_unlock of a rwlock the caller (" + describe(me) + ") does not hold");
  }
  return 0;
}

std::optional<virtual_time> deadline(const timespec* abstime, clockid_t clock) {
  return deadline_at(clock, *abstime);
}

}  // namespace

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, pthread_rwlock_init, (pthread_rwlock_t * l, const pthread_rwlockattr_t* attr)) {
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_init)(l, attr);
  if (!heddle::unwinding())
    if (const auto* m = heddle::rt::rwlocks().find(l); m != nullptr && m->initialized)
      heddle::rt::report_misuse("pthread_rwlock_init of a rwlock that is already initialized "
                            "(double initialization: destroy it first)");
  heddle::rt::rwlocks().emplace(l).initialized = true;
  return HEDDLE_REAL(pthread_rwlock_init)(l, attr);
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_destroy, (pthread_rwlock_t * l)) {
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_destroy)(l);
  if (auto* m = heddle::rt::rwlocks().find(l)) {
    m->state.check_unlocked(heddle::rt::type);
    heddle::rt::rwlocks().erase(l);
  }
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_rdlock, (pthread_rwlock_t * l)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_rdlock)(l);
  return heddle::rt::lock(l, true, true, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_tryrdlock, (pthread_rwlock_t * l)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_tryrdlock)(l);
  return heddle::rt::lock(l, true, false, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_timedrdlock, (pthread_rwlock_t * l, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_timedrdlock)(l, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::lock(l, true, true, heddle::rt::deadline(abstime, CLOCK_REALTIME));
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_clockrdlock, (pthread_rwlock_t * l, clockid_t clock, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_clockrdlock)(l, clock, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::lock(l, true, true, heddle::rt::deadline(abstime, clock));
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_wrlock, (pthread_rwlock_t * l)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_wrlock)(l);
  return heddle::rt::lock(l, false, true, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_trywrlock, (pthread_rwlock_t * l)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_trywrlock)(l);
  return heddle::rt::lock(l, false, false, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_timedwrlock, (pthread_rwlock_t * l, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_timedwrlock)(l, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::lock(l, false, true, heddle::rt::deadline(abstime, CLOCK_REALTIME));
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_clockwrlock, (pthread_rwlock_t * l, clockid_t clock, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_clockwrlock)(l, clock, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::lock(l, false, true, heddle::rt::deadline(abstime, clock));
}

HEDDLE_RT_DEFINE(int, pthread_rwlock_unlock, (pthread_rwlock_t * l)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_rwlock_unlock)(l);
  return heddle::rt::unlock(l);
}
