// expect: assertion assertion failed: count == 2
// A C11 program whose deadlines come from timespec_get, as C11 means them
// to: after a virtual minute of sleep, two workers add to a count, each in
// two critical sections (mtx_timedlock with a deadline 30 s away), so one may
// lose the other's update; main waits for both with cnd_timedwait and checks
// that a wait which timed out did so after its deadline. glibc's timespec_get
// read the real clock: once the sleep had moved virtual time on, every
// deadline lay in the virtual past, every timed wait timed out at once, and
// main's check failed in this program and in its correct twin ("assertion
// failed: !before(now, deadline)"). timespec_get now reads virtual time
// (src/rt/posix_clock.cpp).
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
  int seen = count;
  mtx_unlock(&m);
  lock();
  count = seen + 1;
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
