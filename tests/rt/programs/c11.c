/* C11 <threads.h>: threads, mutexes, condition variables, call_once and
 * thread-specific storage, for rt_tests. */
#include <stdint.h>
#include <threads.h>

#include "programs.h"

static mtx_t lock;
static cnd_t cond;
static int ready;
static int counter;
static once_flag once = ONCE_FLAG_INIT;
static int once_runs;
static tss_t key;
static int destroyed;

static void count_once(void) { ++once_runs; }
static void destroy_value(void* v) { destroyed += (int)(intptr_t)v; }

static int worker(void* arg) {
  call_once(&once, count_once);
  tss_set(key, (void*)(intptr_t)5);
  rt_check(tss_get(key) == (void*)(intptr_t)5, "tss_get sees this thread's value");
  mtx_lock(&lock);
  ++counter;
  mtx_unlock(&lock);
  thrd_yield();
  return (int)(intptr_t)arg;
}

/* Returns the sum of the threads' results (1 + 2) plus 100 per check that
 * holds: the counter, call_once ran once, both tss destructors ran. */
int prog_c11_threads(void) {
  once_flag fresh = ONCE_FLAG_INIT;
  once = fresh;
  counter = 0;
  once_runs = 0;
  destroyed = 0;
  mtx_init(&lock, mtx_plain);
  tss_create(&key, destroy_value);
  thrd_t t[2];
  thrd_create(&t[0], worker, (void*)(intptr_t)1);
  thrd_create(&t[1], worker, (void*)(intptr_t)2);
  int sum = 0;
  for (int i = 0; i < 2; ++i) {
    int r = 0;
    thrd_join(t[i], &r);
    sum += r;
  }
  tss_delete(key);
  mtx_destroy(&lock);
  return sum + 100 * (counter == 2) + 100 * (once_runs == 1) + 100 * (destroyed == 10);
}

static int c11_waiter(void* arg) {
  int fixed = (int)(intptr_t)arg;
  mtx_lock(&lock);
  if (fixed) {
    while (!ready) cnd_wait(&cond, &lock);
  } else {
    cnd_wait(&cond, &lock);
  }
  mtx_unlock(&lock);
  return 0;
}

int prog_c11_lost_wakeup(int fixed) {
  ready = 0;
  mtx_init(&lock, mtx_plain);
  cnd_init(&cond);
  thrd_t t;
  thrd_create(&t, c11_waiter, (void*)(intptr_t)fixed);
  mtx_lock(&lock);
  ready = 1;
  cnd_signal(&cond);
  mtx_unlock(&lock);
  thrd_join(t, NULL);
  cnd_destroy(&cond);
  mtx_destroy(&lock);
  return ready;
}
