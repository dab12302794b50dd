/* Read-write locks, barriers, once, semaphores, sleeps, spin locks and
 * yielding: small C programs for rt_tests. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "programs.h"

/* --- read-write lock ----------------------------------------------------- */

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int rw_value;
static int rw_writers_lock;

static void* rw_increment(void* arg) {
  (void)arg;
  if (rw_writers_lock) pthread_rwlock_wrlock(&rw);
  else pthread_rwlock_rdlock(&rw); /* the bug: a read lock to write */
  int seen = rw_value;
  sched_yield();
  rw_value = seen + 1;
  pthread_rwlock_unlock(&rw);
  return NULL;
}

void prog_rwlock_counter(int writers_lock) {
  rw_value = 0;
  rw_writers_lock = writers_lock;
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, rw_increment, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  rt_check(rw_value == 2, "both increments counted");
}

/* mode 0: read-lock twice and unlock twice (returns the sum of results);
 * 1: write-lock while holding the write lock (returns the result);
 * 2: unlock a rwlock not held (misuse). */
int prog_rwlock_rules(int mode) {
  pthread_rwlock_t l;
  pthread_rwlock_init(&l, NULL);
  int rc = 0;
  switch (mode) {
    case 0:
      rc = pthread_rwlock_rdlock(&l) + pthread_rwlock_rdlock(&l) + pthread_rwlock_unlock(&l) +
           pthread_rwlock_unlock(&l) + pthread_rwlock_trywrlock(&l) + pthread_rwlock_unlock(&l);
      break;
    case 1:
      pthread_rwlock_wrlock(&l);
      rc = pthread_rwlock_wrlock(&l);
      pthread_rwlock_unlock(&l);
      break;
    default:
      pthread_rwlock_unlock(&l);
  }
  pthread_rwlock_destroy(&l);
  return rc;
}

/* --- barrier ---------------------------------------------------------------- */

static pthread_barrier_t barrier;
static int slots[3];
static int serial_waits;

static void* barrier_worker(void* arg) {
  intptr_t me = (intptr_t)arg;
  for (int round = 1; round <= 2; ++round) {
    slots[me] = round;
    if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD) ++serial_waits;
    for (int i = 0; i < 3; ++i) rt_check(slots[i] >= round, "every slot written before the barrier opened");
    if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD) ++serial_waits;
  }
  return NULL;
}

int prog_barrier_rounds(void) {
  serial_waits = 0;
  pthread_barrier_init(&barrier, NULL, 3);
  pthread_t t[3];
  for (intptr_t i = 0; i < 3; ++i) pthread_create(&t[i], NULL, barrier_worker, (void*)i);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&barrier);
  return serial_waits;
}

/* --- once ------------------------------------------------------------------- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static int initialized;

static void init_once(void) {
  ++once_runs;
  sched_yield();
  initialized = 1;
}

static void* once_user(void* arg) {
  (void)arg;
  pthread_once(&once, init_once);
  rt_check(initialized, "pthread_once returned after the routine ran");
  return NULL;
}

int prog_once(void) {
  pthread_once_t fresh = PTHREAD_ONCE_INIT;
  once = fresh;
  once_runs = 0;
  initialized = 0;
  pthread_t t[3];
  for (int i = 0; i < 3; ++i) pthread_create(&t[i], NULL, once_user, NULL);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
  return once_runs;
}

/* --- a one-slot buffer between semaphores --------------------------------------- */

static sem_t slots_free, items;
static int slot;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 1; i <= 3; ++i) {
    sem_wait(&slots_free);
    slot = i;
    sem_post(&items);
  }
  return NULL;
}

void prog_bounded_buffer(int free_at_start) {
  sem_init(&slots_free, 0, (unsigned)free_at_start); /* 1 is right; 2 lets the producer overwrite */
  sem_init(&items, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  for (int i = 1; i <= 3; ++i) {
    sem_wait(&items);
    rt_check(slot == i, "items consumed in order, none overwritten");
    sem_post(&slots_free);
  }
  pthread_join(t, NULL);
  int value = -1;
  sem_getvalue(&items, &value);
  rt_check(value == 0, "no item left");
  sem_destroy(&slots_free);
  sem_destroy(&items);
}

/* --- sleeps and timeouts on virtual time ------------------------------------------- */

static long long monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Sleeps an hour five ways; returns how much time the program believes
 * passed: four hours and a second, as its clock reads virtual time, on which
 * the sleeps are spent (they cost no real time). */
long long prog_sleeps(void) {
  const long long start = monotonic_ns();
  sleep(3600);
  usleep(1000000);
  struct timespec hour = {3600, 0};
  nanosleep(&hour, NULL);
  clock_nanosleep(CLOCK_MONOTONIC, 0, &hour, NULL);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 3600;
  clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, NULL);
  return monotonic_ns() - start;
}

static struct timespec in_an_hour(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_sec += 3600;
  return t;
}

int prog_timeouts(void) {
  int timed_out = 0;
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  struct timespec t = in_an_hour(CLOCK_REALTIME);
  pthread_mutex_lock(&m);
  timed_out += pthread_cond_timedwait(&c, &m, &t) == ETIMEDOUT;
  pthread_mutex_unlock(&m);

  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_t mc;
  pthread_cond_init(&mc, &attr);
  t = in_an_hour(CLOCK_MONOTONIC);
  pthread_mutex_lock(&m);
  timed_out += pthread_cond_timedwait(&mc, &m, &t) == ETIMEDOUT;
  pthread_mutex_unlock(&m);
  pthread_cond_destroy(&mc);
  pthread_condattr_destroy(&attr);

  sem_t s;
  sem_init(&s, 0, 0);
  t = in_an_hour(CLOCK_REALTIME);
  timed_out += sem_timedwait(&s, &t) == -1 && errno == ETIMEDOUT;
  sem_destroy(&s);

  pthread_mutex_lock(&m);
  t = in_an_hour(CLOCK_REALTIME);
  timed_out += pthread_mutex_timedlock(&m, &t) == ETIMEDOUT; /* held by the caller: waits out the hour */
  pthread_mutex_unlock(&m);
  return timed_out;
}

/* --- spin locks ----------------------------------------------------------------------- */

static pthread_spinlock_t spin;
static int spin_value;

static void* spin_increment(void* arg) {
  (void)arg;
  pthread_spin_lock(&spin);
  int seen = spin_value;
  sched_yield();
  spin_value = seen + 1;
  pthread_spin_unlock(&spin);
  return NULL;
}

void prog_spin_counter(void) {
  spin_value = 0;
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, spin_increment, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  pthread_spin_destroy(&spin);
  rt_check(spin_value == 2, "both increments counted");
}

int prog_spin_relock(void) {
  pthread_spinlock_t s;
  pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
  pthread_spin_lock(&s);
  return pthread_spin_lock(&s);
}

/* --- a spin loop that yields -------------------------------------------------------------- */

static volatile int flag;
static int spin_sleeps;

static void* set_flag(void* arg) {
  (void)arg;
  sched_yield();
  sched_yield();
  flag = 1;
  return NULL;
}

int prog_yield_spin(int use_sleep) {
  flag = 0;
  spin_sleeps = use_sleep;
  pthread_t t;
  pthread_create(&t, NULL, set_flag, NULL);
  int spins = 0;
  while (!flag) {
    if (spin_sleeps) usleep(100);
    else sched_yield();
    ++spins;
  }
  pthread_join(t, NULL);
  return spins;
}
