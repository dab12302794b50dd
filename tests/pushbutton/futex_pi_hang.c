// expect: hang blocked in futex() (FUTEX_WAIT_REQUEUE_PI on
// heddle: --iteration-timeout 300ms
// replays: 3
// A condition on the futex system call with priority inheritance, which heddle
// does not model: such a call is the kernel's, as one step. The worker waits
// on the condition word unless main has already signalled (changed the word),
// but main checks nothing and never signals, and waits for the worker: the
// worker blocks in the kernel for good. A hang, and the report names the call
// the worker is blocked in.
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned condition = 0;
static unsigned pi_lock = 0;

static void* worker(void* arg) {
  // Returns at once (EAGAIN) if `condition` is no longer 0.
  syscall(SYS_futex, &condition, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL, &pi_lock, 0);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);  // the bug: the condition is never signalled
  return 0;
}
