/* Threads, mutexes and condition variables: small C programs for rt_tests. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "programs.h"

/* --- create / join ---------------------------------------------------- */

static void* times_ten(void* arg) { return (void*)((intptr_t)arg * 10); }

int prog_create_join_result(void) {
  pthread_t t[3];
  intptr_t sum = 0;
  for (intptr_t i = 0; i < 3; ++i) pthread_create(&t[i], NULL, times_ten, (void*)(i + 1));
  for (int i = 0; i < 3; ++i) {
    void* r = NULL;
    pthread_join(t[i], &r);
    sum += (intptr_t)r;
  }
  return (int)sum;
}

/* --- a counter: one critical section, or read and write in two ---------- */

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static int counter_locked;

static void* increment(void* arg) {
  (void)arg;
  if (counter_locked) {
    pthread_mutex_lock(&counter_lock);
    ++counter;
    pthread_mutex_unlock(&counter_lock);
  } else {
    pthread_mutex_lock(&counter_lock);
    int seen = counter;
    pthread_mutex_unlock(&counter_lock);
    pthread_mutex_lock(&counter_lock);
    counter = seen + 1;
    pthread_mutex_unlock(&counter_lock);
  }
  return NULL;
}

void prog_counter(int threads, int locked) {
  pthread_t t[16];
  counter = 0;
  counter_locked = locked;
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, increment, NULL);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  rt_check(counter == threads, "every increment counted");
}

/* --- ABBA --------------------------------------------------------------- */

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int abba_ordered;

static void* take_b_then_a(void* arg) {
  (void)arg;
  pthread_mutex_t* first = abba_ordered ? &lock_a : &lock_b;
  pthread_mutex_t* second = abba_ordered ? &lock_b : &lock_a;
  pthread_mutex_lock(first);
  pthread_mutex_lock(second);
  pthread_mutex_unlock(second);
  pthread_mutex_unlock(first);
  return NULL;
}

void prog_abba(int ordered) {
  abba_ordered = ordered;
  pthread_t t;
  pthread_create(&t, NULL, take_b_then_a, NULL);
  pthread_mutex_lock(&lock_a);
  pthread_mutex_lock(&lock_b);
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  pthread_join(t, NULL);
}

/* --- mutex misuse --------------------------------------------------------- */

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void* lock_and_keep(void* arg) {
  (void)arg;
  pthread_mutex_lock(&shared_lock);
  return NULL;
}

/* mode 0: unlock an unlocked mutex; 1: unlock a mutex another thread holds;
 * 2: initialize twice; 3: destroy while locked; 4: re-lock a normal mutex;
 * 5: re-lock an error-checking mutex (returns its result); 6: a recursive
 * mutex locked twice (returns 0 when both unlocks succeed); 7: a condition
 * variable initialized twice; 8: trylock of a normal mutex the caller holds
 * (returns its result); 9: a condition wait with a mutex the caller does
 * not hold. */
int prog_mutex_misuse(int mode) {
  pthread_mutex_t m;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  if (mode == 5) pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  if (mode == 6) pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&m, &attr);
  int rc = 0;
  switch (mode) {
    case 0:
      pthread_mutex_unlock(&m);
      break;
    case 1: {
      pthread_t t;
      pthread_create(&t, NULL, lock_and_keep, NULL);
      pthread_join(t, NULL);
      pthread_mutex_unlock(&shared_lock);
      break;
    }
    case 2:
      pthread_mutex_init(&m, NULL);
      break;
    case 3:
      pthread_mutex_lock(&m);
      pthread_mutex_destroy(&m);
      break;
    case 4:
    case 5:
    case 8:
      pthread_mutex_lock(&m);
      rc = mode == 8 ? pthread_mutex_trylock(&m) : pthread_mutex_lock(&m);
      pthread_mutex_unlock(&m);
      break;
    case 6:
      pthread_mutex_lock(&m);
      pthread_mutex_lock(&m);
      rc = pthread_mutex_unlock(&m) + pthread_mutex_unlock(&m);
      rc += pthread_mutex_unlock(&m) == 0 ? 100 : 0; /* a third unlock is misuse */
      break;
    case 7: {
      pthread_cond_t c;
      pthread_cond_init(&c, NULL);
      pthread_cond_init(&c, NULL);
      break;
    }
    case 9: {
      pthread_cond_t c = PTHREAD_COND_INITIALIZER;
      pthread_cond_wait(&c, &m);
      break;
    }
  }
  pthread_mutexattr_destroy(&attr);
  pthread_mutex_destroy(&m);
  return rc;
}

/* --- join misuse ------------------------------------------------------------ */

static void* nothing(void* arg) { return arg; }

/* mode 0: join an id no thread has; 1: join twice; 2: join a detached
 * thread; 3: join oneself (returns the result). */
int prog_join_misuse(int mode) {
  pthread_t t;
  switch (mode) {
    case 0:
      memset(&t, 0x5a, sizeof t);
      return pthread_join(t, NULL);
    case 1:
      pthread_create(&t, NULL, nothing, NULL);
      pthread_join(t, NULL);
      return pthread_join(t, NULL);
    case 2:
      pthread_create(&t, NULL, nothing, NULL);
      pthread_detach(t);
      return pthread_join(t, NULL);
    default:
      return pthread_join(pthread_self(), NULL);
  }
}

/* --- condition variables ------------------------------------------------------ */

static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static int wait_fixed;

static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&cv_lock);
  if (wait_fixed) {
    while (!ready) pthread_cond_wait(&cv, &cv_lock);
  } else {
    pthread_cond_wait(&cv, &cv_lock); /* no predicate: a signal before the wait is lost */
  }
  pthread_mutex_unlock(&cv_lock);
  return NULL;
}

int prog_lost_wakeup(int fixed) {
  ready = 0;
  wait_fixed = fixed;
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  pthread_mutex_lock(&cv_lock);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&cv_lock);
  pthread_join(t, NULL);
  return ready;
}

int prog_cond_destroy_waited(void) {
  ready = 0;
  wait_fixed = 1;
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  pthread_mutex_lock(&cv_lock);
  pthread_mutex_unlock(&cv_lock);
  pthread_cond_destroy(&cv);
  pthread_mutex_lock(&cv_lock);
  ready = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&cv_lock);
  pthread_join(t, NULL);
  return 0;
}

/* --- cancellation and exit with C cleanup handlers ------------------------------ */

static int cleaned;
static pthread_key_t key;
static int key_destroyed;

static void unlock_handler(void* m) {
  cleaned += 1;
  pthread_mutex_unlock((pthread_mutex_t*)m);
}

static void count_handler(void* arg) {
  (void)arg;
  cleaned += 10;
}

static void key_destructor(void* value) { key_destroyed += (int)(intptr_t)value; }

static void* wait_forever(void* arg) {
  (void)arg;
  pthread_cleanup_push(count_handler, NULL);
  pthread_mutex_lock(&cv_lock);
  pthread_cleanup_push(unlock_handler, &cv_lock);
  for (;;) pthread_cond_wait(&cv, &cv_lock);
  pthread_cleanup_pop(1);
  pthread_cleanup_pop(1);
  return NULL;
}

/* Returns 1 when the cancelled thread's result is PTHREAD_CANCELED, both
 * handlers ran (innermost first: the mutex is free again). */
int prog_cleanup_cancel(void) {
  cleaned = 0;
  pthread_t t;
  pthread_create(&t, NULL, wait_forever, NULL);
  pthread_cancel(t);
  void* result = NULL;
  pthread_join(t, &result);
  if (pthread_mutex_trylock(&cv_lock) != 0) return 0;
  pthread_mutex_unlock(&cv_lock);
  return result == PTHREAD_CANCELED && cleaned == 11;
}

static void exit_inner(void) { pthread_exit((void*)42); }

static void* exit_early(void* arg) {
  (void)arg;
  pthread_setspecific(key, (void*)7);
  pthread_cleanup_push(count_handler, NULL);
  exit_inner();
  pthread_cleanup_pop(0);
  return NULL;
}

/* Returns pthread_exit's value plus what the cleanup handler and the key's
 * destructor added: 42 + 10 + 7. */
int prog_exit_with_cleanup(void) {
  cleaned = 0;
  key_destroyed = 0;
  pthread_key_create(&key, key_destructor);
  pthread_t t;
  pthread_create(&t, NULL, exit_early, NULL);
  void* result = NULL;
  pthread_join(t, &result);
  pthread_key_delete(key);
  return (int)(intptr_t)result + cleaned + key_destroyed;
}

/* --- a joiner cancelled while it waits ------------------------------------------ */

static pthread_t sleeper_thread;

static void* sleeper(void* arg) {
  (void)arg;
  pthread_mutex_lock(&cv_lock);
  pthread_cleanup_push(unlock_handler, &cv_lock);
  for (;;) pthread_cond_wait(&cv, &cv_lock);
  pthread_cleanup_pop(1);
  return NULL;
}

static void* joiner(void* arg) {
  (void)arg;
  pthread_join(sleeper_thread, NULL);
  return NULL;
}

int prog_cancel_joiner(void) {
  pthread_t j;
  pthread_create(&sleeper_thread, NULL, sleeper, NULL);
  pthread_create(&j, NULL, joiner, NULL);
  pthread_cancel(j);
  void* joined = NULL;
  pthread_join(j, &joined);
  pthread_cancel(sleeper_thread);
  void* slept = NULL;
  pthread_join(sleeper_thread, &slept); /* the cancelled join left it joinable */
  return joined == PTHREAD_CANCELED && slept == PTHREAD_CANCELED;
}

/* --- cancellation at the waits and sleeps ---------------------------------------- */

static sem_t never_posted;
static int blocked_cleaned;
static int blocked_where;

static void note_cleanup(void* arg) {
  (void)arg;
  blocked_cleaned = 1;
}

/* Blocks where `blocked_where` says, with a cleanup handler pushed, for ever:
 * a semaphore nobody posts, or an hour's sleep again and again (virtual time
 * lets a sleep end whenever the strategy likes, so only a loop makes sure the
 * cancel finds the thread sleeping). */
static void* block_somewhere(void* arg) {
  pthread_cleanup_push(note_cleanup, NULL);
  const struct timespec hour = {3600, 0};
  for (;;) {
    struct timespec later;
    clock_gettime(CLOCK_REALTIME, &later);
    later.tv_sec += 3600;
    struct timespec later_monotonic;
    clock_gettime(CLOCK_MONOTONIC, &later_monotonic);
    later_monotonic.tv_sec += 3600;
    switch (blocked_where) {
      case 0: sem_wait(&never_posted); break;
      case 1: sem_timedwait(&never_posted, &later); break;
      case 2: sleep(3600); break;
      case 3: usleep(999999); break;
      case 4: nanosleep(&hour, NULL); break;
      case 5: clock_nanosleep(CLOCK_MONOTONIC, 0, &hour, NULL); break;
      default: clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &later_monotonic, NULL); break;
    }
  }
  pthread_cleanup_pop(0);
  return arg;
}

/* where: 0 sem_wait, 1 sem_timedwait, 2 sleep, 3 usleep, 4 nanosleep,
 * 5 clock_nanosleep, 6 clock_nanosleep with TIMER_ABSTIME. main cancels the
 * blocked thread and joins it. Returns 1 when the join saw PTHREAD_CANCELED,
 * the cleanup handler ran and the semaphore kept its count (0). */
int prog_cancel_blocked(int where) {
  blocked_where = where;
  blocked_cleaned = 0;
  sem_init(&never_posted, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, block_somewhere, NULL);
  pthread_cancel(t);
  void* result = NULL;
  pthread_join(t, &result);
  int value = -1;
  sem_getvalue(&never_posted, &value);
  sem_destroy(&never_posted);
  return result == PTHREAD_CANCELED && blocked_cleaned == 1 && value == 0;
}

/* --- pthread_exit in main --------------------------------------------------------- */

static void* finish_later(void* arg) {
  sched_yield();
  *(int*)arg = 1;
  return NULL;
}

void prog_main_exits(int* finished) {
  pthread_t t;
  pthread_create(&t, NULL, finish_later, finished);
  pthread_detach(t);
  pthread_exit(NULL);
}

int prog_lock_destroyed(void) {
  pthread_mutex_t m;
  pthread_mutex_init(&m, NULL);
  pthread_mutex_destroy(&m);
  return pthread_mutex_lock(&m);
}

/* --- pthread_tryjoin_np and pthread_timedjoin_np ----------------------------------- */

static void* nap(void* arg) {
  (void)arg;
  sleep(60);
  return (void*)7;
}

int prog_nonportable_joins(void) {
  pthread_t t;
  pthread_create(&t, NULL, nap, NULL);
  void* r = NULL;
  int joined = 0;
  int rc = pthread_tryjoin_np(t, &r);
  if (rc != 0 && rc != EBUSY) return 0;
  joined = rc == 0;
  if (!joined) {
    struct timespec soon;
    clock_gettime(CLOCK_REALTIME, &soon);
    soon.tv_sec += 1;
    rc = pthread_timedjoin_np(t, &r, &soon);
    if (rc != 0 && rc != ETIMEDOUT) return 0;
    joined = rc == 0;
  }
  if (!joined && pthread_join(t, &r) != 0) return 0;
  return r == (void*)7;
}
