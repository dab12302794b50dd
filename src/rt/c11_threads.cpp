// The C11 threads of <threads.h> (thrd_, mtx_, cnd_, call_once, tss_) under
// control. glibc implements them over its pthread functions internally,
// without going through the PLT, so interposing pthreads alone would not
// reach them: each is defined here over the pthread interposers (which pass
// through to the C library outside control), with C11's result codes.
#include <threads.h>

#include <cerrno>
#include <cstdint>

#include "rt/pthread_runtime.hpp"

// The pthread interposers, by their C++ names (not noexcept: see
// HEDDLE_RT_DEFINE).
HEDDLE_RT_DECLARE(int, pthread_create, (pthread_t*, const pthread_attr_t*, void* (*)(void*), void*));
HEDDLE_RT_DECLARE(int, pthread_join, (pthread_t, void**));
HEDDLE_RT_DECLARE(int, pthread_detach, (pthread_t));
HEDDLE_RT_DECLARE(void, pthread_exit, (void*));
HEDDLE_RT_DECLARE(pthread_t, pthread_self, ());
HEDDLE_RT_DECLARE(int, sched_yield, ());
HEDDLE_RT_DECLARE(int, nanosleep, (const struct timespec*, struct timespec*));
HEDDLE_RT_DECLARE(int, pthread_mutex_init, (pthread_mutex_t*, const pthread_mutexattr_t*));
HEDDLE_RT_DECLARE(int, pthread_mutex_destroy, (pthread_mutex_t*));
HEDDLE_RT_DECLARE(int, pthread_mutex_lock, (pthread_mutex_t*));
HEDDLE_RT_DECLARE(int, pthread_mutex_trylock, (pthread_mutex_t*));
HEDDLE_RT_DECLARE(int, pthread_mutex_timedlock, (pthread_mutex_t*, const struct timespec*));
HEDDLE_RT_DECLARE(int, pthread_mutex_unlock, (pthread_mutex_t*));
HEDDLE_RT_DECLARE(int, pthread_cond_init, (pthread_cond_t*, const pthread_condattr_t*));
HEDDLE_RT_DECLARE(int, pthread_cond_destroy, (pthread_cond_t*));
HEDDLE_RT_DECLARE(int, pthread_cond_wait, (pthread_cond_t*, pthread_mutex_t*));
HEDDLE_RT_DECLARE(int, pthread_cond_timedwait, (pthread_cond_t*, pthread_mutex_t*, const struct timespec*));
HEDDLE_RT_DECLARE(int, pthread_cond_signal, (pthread_cond_t*));
HEDDLE_RT_DECLARE(int, pthread_cond_broadcast, (pthread_cond_t*));
HEDDLE_RT_DECLARE(int, pthread_once, (pthread_once_t*, void (*)()));
HEDDLE_RT_DECLARE(int, pthread_key_create, (pthread_key_t*, void (*)(void*)));
HEDDLE_RT_DECLARE(int, pthread_key_delete, (pthread_key_t));
HEDDLE_RT_DECLARE(void*, pthread_getspecific, (pthread_key_t));
HEDDLE_RT_DECLARE(int, pthread_setspecific, (pthread_key_t, const void*));

namespace heddle::rt {

namespace {

// thrd_start_t returns int; a pthread start routine returns void*.
struct c11_start {
  thrd_start_t function;
  void* arg;
};

void* run_c11(void* p) {
  const c11_start start = *static_cast<c11_start*>(p);
  delete static_cast<c11_start*>(p);
  return reinterpret_cast<void*>(static_cast<std::intptr_t>(start.function(start.arg)));
}

int result(int pthread_rc) {
  switch (pthread_rc) {
    case 0: return thrd_success;
    case EBUSY: return thrd_busy;
    case ETIMEDOUT: return thrd_timedout;
    case ENOMEM: return thrd_nomem;
    default: return thrd_error;
  }
}

// mtx_t, cnd_t and once_flag have the layouts of their pthread counterparts.
pthread_mutex_t* native(mtx_t* m) { return reinterpret_cast<pthread_mutex_t*>(m); }
pthread_cond_t* native(cnd_t* c) { return reinterpret_cast<pthread_cond_t*>(c); }

}  // namespace

}  // namespace heddle::rt

using heddle::rt::native;
using heddle::rt::result;

HEDDLE_RT_DEFINE(int, thrd_create, (thrd_t * thread, thrd_start_t function, void* arg)) {
  auto* start = new heddle::rt::c11_start{function, arg};
  const int rc = heddle_rt_pthread_create(thread, nullptr, heddle::rt::run_c11, start);
  if (rc != 0) delete start;
  return rc == EAGAIN ? thrd_nomem : result(rc);
}

HEDDLE_RT_DEFINE(int, thrd_join, (thrd_t thread, int* res)) {
  void* value = nullptr;
  const int rc = heddle_rt_pthread_join(thread, &value);
  if (rc == 0 && res != nullptr) *res = static_cast<int>(reinterpret_cast<std::intptr_t>(value));
  return result(rc);
}

HEDDLE_RT_DEFINE(int, thrd_detach, (thrd_t thread)) { return result(heddle_rt_pthread_detach(thread)); }

HEDDLE_RT_DEFINE(void, thrd_exit, (int res)) {
  heddle_rt_pthread_exit(reinterpret_cast<void*>(static_cast<std::intptr_t>(res)));
  __builtin_unreachable();
}

HEDDLE_RT_DEFINE(thrd_t, thrd_current, ()) { return heddle_rt_pthread_self(); }

HEDDLE_RT_DEFINE(int, thrd_equal, (thrd_t a, thrd_t b)) { return a == b ? 1 : 0; }

HEDDLE_RT_DEFINE(void, thrd_yield, ()) { heddle_rt_sched_yield(); }

HEDDLE_RT_DEFINE(int, thrd_sleep, (const struct timespec* duration, struct timespec* remaining)) {
  if (heddle_rt_nanosleep(duration, remaining) == 0) return 0;
  return errno == EINTR ? -1 : -2;
}

HEDDLE_RT_DEFINE(int, mtx_init, (mtx_t * m, int type)) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  if ((type & mtx_recursive) != 0) pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  const int rc = heddle_rt_pthread_mutex_init(native(m), &attr);
  pthread_mutexattr_destroy(&attr);
  return result(rc);
}

HEDDLE_RT_DEFINE(void, mtx_destroy, (mtx_t * m)) { heddle_rt_pthread_mutex_destroy(native(m)); }
HEDDLE_RT_DEFINE(int, mtx_lock, (mtx_t * m)) { return result(heddle_rt_pthread_mutex_lock(native(m))); }
HEDDLE_RT_DEFINE(int, mtx_trylock, (mtx_t * m)) { return result(heddle_rt_pthread_mutex_trylock(native(m))); }
HEDDLE_RT_DEFINE(int, mtx_timedlock, (mtx_t * m, const struct timespec* abstime)) {
  return result(heddle_rt_pthread_mutex_timedlock(native(m), abstime));
}
HEDDLE_RT_DEFINE(int, mtx_unlock, (mtx_t * m)) { return result(heddle_rt_pthread_mutex_unlock(native(m))); }

HEDDLE_RT_DEFINE(int, cnd_init, (cnd_t * c)) { return result(heddle_rt_pthread_cond_init(native(c), nullptr)); }
HEDDLE_RT_DEFINE(void, cnd_destroy, (cnd_t * c)) { heddle_rt_pthread_cond_destroy(native(c)); }
HEDDLE_RT_DEFINE(int, cnd_signal, (cnd_t * c)) { return result(heddle_rt_pthread_cond_signal(native(c))); }
HEDDLE_RT_DEFINE(int, cnd_broadcast, (cnd_t * c)) { return result(heddle_rt_pthread_cond_broadcast(native(c))); }
HEDDLE_RT_DEFINE(int, cnd_wait, (cnd_t * c, mtx_t* m)) {
  return result(heddle_rt_pthread_cond_wait(native(c), native(m)));
}
HEDDLE_RT_DEFINE(int, cnd_timedwait, (cnd_t * c, mtx_t* m, const struct timespec* abstime)) {
  return result(heddle_rt_pthread_cond_timedwait(native(c), native(m), abstime));
}

HEDDLE_RT_DEFINE(void, call_once, (once_flag * flag, void (*routine)())) {
  heddle_rt_pthread_once(reinterpret_cast<pthread_once_t*>(flag), routine);
}

HEDDLE_RT_DEFINE(int, tss_create, (tss_t * key, tss_dtor_t destructor)) {
  return result(heddle_rt_pthread_key_create(key, destructor));
}
HEDDLE_RT_DEFINE(void, tss_delete, (tss_t key)) { heddle_rt_pthread_key_delete(key); }
HEDDLE_RT_DEFINE(void*, tss_get, (tss_t key)) { return heddle_rt_pthread_getspecific(key); }
HEDDLE_RT_DEFINE(int, tss_set, (tss_t key, void* value)) { return result(heddle_rt_pthread_setspecific(key, value)); }
