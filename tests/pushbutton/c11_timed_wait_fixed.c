// The fixed twin of c11_timed_wait.c: each worker adds in one critical
// section.
#include <assert.h>
#include <threads.h>
#include <time.h>

static mtx_t m;
static cnd_t done;
static int count, finished;

static struct timespec in_seconds(int seconds) {
  struct timespec t;
  assert(timespec_get(&t, TIME_UTC) == TIME_UTC);
  t.tv_sec += seconds;
  return t;
}

static int before(struct timespec a, struct timespec b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

static void lock(void) {
  struct timespec deadline = in_seconds(30);
  if (mtx_timedlock(&m, &deadline) == thrd_timedout) {
    struct timespec now = in_seconds(0);
    assert(!before(now, deadline));
    assert(mtx_lock(&m) == thrd_success);
  }
}

static int worker(void* arg) {
  (void)arg;
  lock();
  count = count + 1;
  ++finished;
  cnd_signal(&done);
  mtx_unlock(&m);
  return 0;
}

int main(void) {
  assert(mtx_init(&m, mtx_timed) == thrd_success && cnd_init(&done) == thrd_success);
  struct timespec minute = {60, 0};
  thrd_sleep(&minute, NULL);
  thrd_t a, b;
  thrd_create(&a, worker, NULL);
  thrd_create(&b, worker, NULL);
  lock();
  while (finished < 2) {
    struct timespec deadline = in_seconds(10);
    if (cnd_timedwait(&done, &m, &deadline) == thrd_timedout) {
      struct timespec now = in_seconds(0);
      assert(!before(now, deadline));
    }
  }
  assert(count == 2);
  mtx_unlock(&m);
  thrd_join(a, NULL);
  thrd_join(b, NULL);
  return 0;
}
