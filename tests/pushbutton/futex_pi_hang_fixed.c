// The fixed twin of futex_pi_hang.c: main signals the condition (changes its
// word) before it starts the worker, whose wait then fails at once with
// EAGAIN: futex calls heddle does not model pass through to the kernel.
#include <assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned condition = 0;
static unsigned pi_lock = 0;

static void* worker(void* arg) {
  const long r = syscall(SYS_futex, &condition, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL, &pi_lock, 0);
  assert(r == -1 && errno == EAGAIN);
  return arg;
}

int main(void) {
  pthread_t t;
  __atomic_store_n(&condition, 1, __ATOMIC_RELEASE);
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  return 0;
}
