// Condition variables under control, on heddle's condition model
// (detail::condition_state): a waiter releases the mutex as its last action
// before it blocks, so a signal wakes exactly the threads waiting when it ran
// and a signal before the wait is lost (a lost wake-up ends as a deadlock);
// pthread_cond_signal lets the strategy pick the waiter; spurious wake-ups are
// a choice the strategy may take (options::spurious_wakeups). Timed waits run
// on virtual time on the condition variable's clock (CLOCK_REALTIME unless
// pthread_condattr_setclock chose another; pthread_cond_clockwait names one).
// Waits are cancellation points: a cancel wakes the waiter, which re-locks
// the mutex before it unwinds, as POSIX requires.
//
// Misuse is a bug of kind API misuse: initializing a condition variable that
// is initialized, waiting with a mutex the caller does not hold, destroying a
// condition variable threads wait on.
#include <string>

#include "backends/real.hpp"
#include "engine/engine.hpp"
#include "heddle/condition_variable.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

struct cond_model {
  detail::condition_state state;
  clockid_t clock = CLOCK_REALTIME;
  bool initialized = false;
};

side_table<cond_model>& conds() {
  static side_table<cond_model> table;
  return table;
}

cond_model& model_of(const void* c) {
  if (cond_model* m = conds().find(c)) return *m;
  return conds().emplace(c);
}

// `caller`: the code address pthread_cond_*wait returns to, the site of its
// spurious wake-up choice (systematic strategies explore one per site).
int wait(pthread_cond_t* c, pthread_mutex_t* m, std::optional<virtual_time> deadline, std::uintptr_t caller) {
  cancellation_point();
  cond_model& cv = model_of(c);
  if (!unwinding() && !mutex_held_by_caller(m))
    report_misuse("pthread_cond_wait with a mutex the caller (" + describe(current_operation()) +
                  ") does not hold (POSIX requires the waiter to lock it)");
  const auto loc = std::source_location{};
  if (detail::engine* e = detail::engine::current(); e != nullptr && e->running() != 0) e->set_call_pc(caller);
  const bool spurious = cv.state.spurious_wakeup(loc);
  thread_record& me = self();
  // A cancel that comes at the unlock's scheduling point finds the waiter
  // already registered, and the check below sees it: no point lies between
  // the check and the block.
  me.waiting_cond = c;
  unlock_mutex(m);
  cv_status status = cv_status::no_timeout;
  if (!spurious && !(me.cancel_pending && me.cancel_enabled)) status = cv.state.block(deadline, loc);
  me.waiting_cond = nullptr;
  lock_mutex(m, true, std::nullopt);
  cancellation_point();
  return status == cv_status::timeout ? ETIMEDOUT : 0;
}

}  // namespace

void wake_cond_waiters(void* c) { model_of(c).state.notify_all(std::source_location{}); }

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, pthread_cond_init, (pthread_cond_t * c, const pthread_condattr_t* attr)) {
  if (!controlled()) return HEDDLE_REAL_COND(pthread_cond_init)(c, attr);
  if (!heddle::unwinding())
    if (const auto* model = heddle::rt::conds().find(c); model != nullptr && model->initialized)
      heddle::rt::report_misuse("pthread_cond_init of a condition variable that is already initialized "
                            "(double initialization: destroy it first)");
  const int rc = HEDDLE_REAL_COND(pthread_cond_init)(c, attr);
  if (rc != 0) return rc;
  auto& model = heddle::rt::conds().emplace(c);
  model.initialized = true;
  if (attr != nullptr) pthread_condattr_getclock(attr, &model.clock);
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_cond_destroy, (pthread_cond_t * c)) {
  if (!controlled()) return HEDDLE_REAL_COND(pthread_cond_destroy)(c);
  if (auto* model = heddle::rt::conds().find(c)) {
    if (!heddle::unwinding() && model->state.waiters() > 0)
      heddle::rt::report_misuse("pthread_cond_destroy of a condition variable that " +
                            std::to_string(model->state.waiters()) +
                            " thread(s) wait on (signal them first)");
    heddle::rt::conds().erase(c);
  }
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_cond_wait, (pthread_cond_t * c, pthread_mutex_t* m)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL_COND(pthread_cond_wait)(c, m);
  return heddle::rt::wait(c, m, std::nullopt, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}

HEDDLE_RT_DEFINE(int, pthread_cond_timedwait, (pthread_cond_t * c, pthread_mutex_t* m, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL_COND(pthread_cond_timedwait)(c, m, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::wait(c, m, heddle::rt::deadline_at(heddle::rt::model_of(c).clock, *abstime),
                         reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}

HEDDLE_RT_DEFINE(int, pthread_cond_clockwait,
                 (pthread_cond_t * c, pthread_mutex_t* m, clockid_t clock, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_cond_clockwait)(c, m, clock, abstime);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::wait(c, m, heddle::rt::deadline_at(clock, *abstime),
                         reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}

HEDDLE_RT_DEFINE(int, pthread_cond_signal, (pthread_cond_t * c)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL_COND(pthread_cond_signal)(c);
  heddle::rt::model_of(c).state.notify_one(std::source_location{});
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_cond_broadcast, (pthread_cond_t * c)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL_COND(pthread_cond_broadcast)(c);
  heddle::rt::model_of(c).state.notify_all(std::source_location{});
  return 0;
}
