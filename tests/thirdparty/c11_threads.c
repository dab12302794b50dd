/* C11 <threads.h> (glibc 2.36): thrd_create, mtx_timedlock, cnd_timedwait,
 * call_once, tss with a destructor; the deadlines come from timespec_get, as
 * C11 means them to. glibc's timespec_get read the real clock, so once a
 * timeout had moved virtual time on, every deadline lay in the virtual past,
 * and main's wait loop ran to --max-steps in 47 of 50 iterations; it reads
 * virtual time now (src/rt/posix_clock.cpp). A timed lock may time out (on
 * virtual time the strategy decides): the worker then waits without one.
 * With -DPLANT_LOST_UPDATE a worker adds outside the lock: a data race. */
#include <assert.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>

static mtx_t m;
static cnd_t c;
static once_flag once = ONCE_FLAG_INIT;
static tss_t key;
static int once_calls, ready, dtors;
static long total;

static void init(void) { ++once_calls; }
static void dtor(void* p) { (void)p; mtx_lock(&m); ++dtors; mtx_unlock(&m); }

static int worker(void* arg) {
  long n = (long)arg;
  call_once(&once, init);
  tss_set(key, arg);
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  ts.tv_sec += 1;
  /* A timeout may expire (virtual time): then wait without one. */
  if (mtx_timedlock(&m, &ts) != thrd_success && mtx_lock(&m) != thrd_success) return -1;
#ifdef PLANT_LOST_UPDATE
  mtx_unlock(&m);
  long seen = total;
  thrd_yield();
  total = seen + n;
  mtx_lock(&m);
#else
  total += n;
#endif
  ++ready;
  cnd_broadcast(&c);
  mtx_unlock(&m);
  assert(tss_get(key) == arg);
  return (int)n;
}

int main(void) {
  assert(mtx_init(&m, mtx_timed) == thrd_success);
  assert(cnd_init(&c) == thrd_success);
  assert(tss_create(&key, dtor) == thrd_success);
  thrd_t a, b;
  assert(thrd_create(&a, worker, (void*)1) == thrd_success);
  assert(thrd_create(&b, worker, (void*)2) == thrd_success);
  mtx_lock(&m);
  while (ready < 2) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    ts.tv_sec += 5;
    cnd_timedwait(&c, &m, &ts);
  }
  mtx_unlock(&m);
  int ra, rb;
  thrd_join(a, &ra);
  thrd_join(b, &rb);
  assert(ra == 1 && rb == 2);
  assert(total == 3 && once_calls == 1 && dtors == 2);
  puts("ok");
  return 0;
}
