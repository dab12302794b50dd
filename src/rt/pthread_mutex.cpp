// Mutexes of every type and spin locks under control, on heddle's exclusive
// lock model (detail::exclusive_state: acquire/release scheduling points,
// Mesa-style waits, timed locks on virtual time).
//
// The type comes from pthread_mutex_init's attributes or, for a mutex set up
// by a static initializer (PTHREAD_MUTEX_INITIALIZER,
// PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP...), from the kind glibc's
// initializer stores in the object. Recursive mutexes count their owner's
// locks; an error-checking mutex returns EDEADLK when its owner locks it
// again; a normal (or default) mutex locked again by its owner is reported as
// a self-deadlock at once, a bug of kind deadlock.
//
// Misuse is a bug of kind API misuse, for every type (an error-checking
// mutex's EPERM would only hide the bug a test looks for): initializing a
// mutex that is initialized, unlocking one that is not locked or that another
// thread holds, destroying one that is locked or that threads wait to lock.
// Spin locks are non-recursive mutexes with the same checks.
#include <string>

#include "backends/real.hpp"
#include "heddle/mutex.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

struct mutex_model {
  detail::exclusive_state state;
  int type = PTHREAD_MUTEX_NORMAL;
  bool initialized = false;  // by pthread_mutex_init / pthread_spin_init
  bool destroyed = false;    // by pthread_mutex_destroy / pthread_spin_destroy
  operation_id owner = 0;
  unsigned depth = 0;
};

side_table<mutex_model>& mutexes() {
  static side_table<mutex_model> table;
  return table;
}

// The type a static initializer (or an init outside control) left in the
// object: glibc keeps it in the low bits of __kind.
int static_type(const pthread_mutex_t* m) {
  switch (m->__data.__kind & 3) {
    case PTHREAD_MUTEX_RECURSIVE: return PTHREAD_MUTEX_RECURSIVE;
    case PTHREAD_MUTEX_ERRORCHECK: return PTHREAD_MUTEX_ERRORCHECK;
    default: return PTHREAD_MUTEX_NORMAL;
  }
}

// The model of the object at `key`. A destroyed one stays in the table so a
// later use is reported, unless the object was set up again without an init
// call (a static initializer assigned over it): glibc's destroy leaves -1 in
// a mutex's kind, which any initializer overwrites.
mutex_model& model_of(const void* key, int type, bool still_destroyed) {
  mutex_model* m = mutexes().find(key);
  if (m != nullptr && (!m->destroyed || still_destroyed)) return *m;
  mutex_model& fresh = mutexes().emplace(key);
  fresh.type = type;
  return fresh;
}

mutex_model& model_of(pthread_mutex_t* m) { return model_of(m, static_type(m), m->__data.__kind == -1); }

// What messages call the object and the functions: "mutex", "pthread_mutex".
struct noun {
  const char* object;
  const char* prefix;
};
constexpr noun mutex_noun{"mutex", "pthread_mutex"};
constexpr noun spin_noun{"spin lock", "pthread_spin"};

// A spin lock is a volatile int; its address is the key.
const void* key(pthread_spinlock_t* s) { return const_cast<const int*>(s); }

void check_not_destroyed(const mutex_model& m, const noun& n, const char* call) {
  if (m.destroyed && !unwinding())
    report_misuse(std::string(n.prefix) + call + " of a " + n.object + " that was destroyed (" + n.prefix +
                  "_destroy) and not initialized again");
}

int lock(mutex_model& m, const noun& n, bool blocking, std::optional<virtual_time> deadline) {
  check_not_destroyed(m, n, "_lock");
  const operation_id me = current_operation();
  const bool recursive = m.type == PTHREAD_MUTEX_RECURSIVE;
  if (m.owner == me && !recursive && !unwinding()) {
    if (!blocking) return EBUSY;
    // Another thread may still unlock it (a misuse of its own) before this
    // lock would block: the re-lock is a scheduling point like any lock.
    scheduling_point(point_kind::acquire, std::source_location{});
  }
  if (m.owner == me && !recursive && !unwinding()) {
    if (m.type == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
    if (deadline) {  // waits for itself until the deadline
      sleep_until(*deadline, {});
      return ETIMEDOUT;
    }
    report_self_deadlock(std::string(n.prefix) + "_lock of a " + n.object + " the caller (" + describe(me) +
                         ") already holds: self-deadlock (a normal " + n.object +
                         " does not count its locks; use a recursive mutex or unlock first)");
  }
  if (!m.state.acquire("pthread mutex", recursive, blocking, deadline, std::source_location{}))
    return deadline ? ETIMEDOUT : EBUSY;
  m.owner = me;
  ++m.depth;
  return 0;
}

int unlock(mutex_model& m, const noun& n) {
  check_not_destroyed(m, n, "_unlock");
  const operation_id me = current_operation();
  if (m.owner != me) {
    if (unwinding()) return 0;
    if (m.owner == 0) report_misuse(std::string(n.prefix) + "_unlock of a " + n.object + " that is not locked");
    report_misuse(std::string(n.prefix) + "_unlock of a " + n.object + " locked by " + describe(m.owner) +
                  ", not by the caller (" + describe(me) + ")");
  }
  if (--m.depth == 0) m.owner = 0;
  m.state.release("pthread mutex", std::source_location{});
  return 0;
}

void check_init(const void* key, const noun& n) {
  if (unwinding()) return;
  if (const mutex_model* m = mutexes().find(key); m != nullptr && m->initialized && !m->destroyed)
    report_misuse(std::string(n.prefix) + "_init of a " + n.object +
                  " that is already initialized (double initialization: destroy it first)");
}

void destroy(const void* key, const noun& n) {
  mutex_model* m = mutexes().find(key);
  if (m != nullptr && m->owner != 0 && !unwinding())
    report_misuse(std::string(n.prefix) + "_destroy of a " + n.object + " that is locked (by " +
                  describe(m->owner) + ")");
  if (m != nullptr && m->state.waiters() > 0 && !unwinding())
    report_misuse(std::string(n.prefix) + "_destroy of a " + n.object + " that " +
                  std::to_string(m->state.waiters()) + " thread(s) wait to lock");
  if (m != nullptr) m->destroyed = true;
}

}  // namespace

int lock_mutex(pthread_mutex_t* m, bool blocking, std::optional<virtual_time> deadline) {
  return lock(model_of(m), mutex_noun, blocking, deadline);
}

int unlock_mutex(pthread_mutex_t* m) { return unlock(model_of(m), mutex_noun); }

bool mutex_held_by_caller(pthread_mutex_t* m) { return model_of(m).owner == current_operation(); }

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, pthread_mutex_init, (pthread_mutex_t * m, const pthread_mutexattr_t* attr)) {
  if (!controlled()) return HEDDLE_REAL(pthread_mutex_init)(m, attr);
  heddle::rt::check_init(m, heddle::rt::mutex_noun);
  const int rc = HEDDLE_REAL(pthread_mutex_init)(m, attr);  // the object stays valid outside control
  if (rc != 0) return rc;
  int type = PTHREAD_MUTEX_DEFAULT;
  if (attr != nullptr) pthread_mutexattr_gettype(attr, &type);
  auto& model = heddle::rt::mutexes().emplace(m);
  model.type = type;
  model.initialized = true;
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_mutex_destroy, (pthread_mutex_t * m)) {
  if (!controlled()) return HEDDLE_REAL(pthread_mutex_destroy)(m);
  heddle::rt::destroy(m, heddle::rt::mutex_noun);
  return HEDDLE_REAL(pthread_mutex_destroy)(m);  // marks the object destroyed (kind -1)
}

HEDDLE_RT_DEFINE(int, pthread_mutex_lock, (pthread_mutex_t * m)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_mutex_lock)(m);
  return heddle::rt::lock_mutex(m, true, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_mutex_trylock, (pthread_mutex_t * m)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_mutex_trylock)(m);
  return heddle::rt::lock_mutex(m, false, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_mutex_timedlock, (pthread_mutex_t * m, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_mutex_timedlock)(m, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::lock_mutex(m, true, heddle::rt::deadline_at(CLOCK_REALTIME, *abstime));
}

HEDDLE_RT_DEFINE(int, pthread_mutex_clocklock, (pthread_mutex_t * m, clockid_t clock, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_mutex_clocklock)(m, clock, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::lock_mutex(m, true, heddle::rt::deadline_at(clock, *abstime));
}

HEDDLE_RT_DEFINE(int, pthread_mutex_unlock, (pthread_mutex_t * m)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_mutex_unlock)(m);
  return heddle::rt::unlock_mutex(m);
}

// --- spin locks ----------------------------------------------------------------

HEDDLE_RT_DEFINE(int, pthread_spin_init, (pthread_spinlock_t * s, int pshared)) {
  if (!controlled()) return HEDDLE_REAL(pthread_spin_init)(s, pshared);
  heddle::rt::check_init(heddle::rt::key(s), heddle::rt::spin_noun);
  *s = 0;
  heddle::rt::mutexes().emplace(heddle::rt::key(s)).initialized = true;
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_spin_destroy, (pthread_spinlock_t * s)) {
  if (!controlled()) return HEDDLE_REAL(pthread_spin_destroy)(s);
  heddle::rt::destroy(heddle::rt::key(s), heddle::rt::spin_noun);
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_spin_lock, (pthread_spinlock_t * s)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_spin_lock)(s);
  return heddle::rt::lock(heddle::rt::model_of(heddle::rt::key(s), PTHREAD_MUTEX_NORMAL, true), heddle::rt::spin_noun, true, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_spin_trylock, (pthread_spinlock_t * s)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_spin_trylock)(s);
  return heddle::rt::lock(heddle::rt::model_of(heddle::rt::key(s), PTHREAD_MUTEX_NORMAL, true), heddle::rt::spin_noun, false, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_spin_unlock, (pthread_spinlock_t * s)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_spin_unlock)(s);
  return heddle::rt::unlock(heddle::rt::model_of(heddle::rt::key(s), PTHREAD_MUTEX_NORMAL, true), heddle::rt::spin_noun);
}
