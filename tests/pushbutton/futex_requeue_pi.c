// expect: deadlock operation 2 waits for atomic
// A condition on the priority-inheritance futexes: the worker waits on the
// condition word with FUTEX_WAIT_REQUEUE_PI unless main has already
// signalled (changed the word), and a signal (FUTEX_CMP_REQUEUE_PI) would
// hand it the lock word as well. But main checks nothing and never signals,
// and waits for the worker: a deadlock. (Run by the kernel, the wait blocked
// its OS thread for good, and the iteration hung until the watchdog.)
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned condition = 0;
static unsigned pi_lock = 0;

static void* worker(void* arg) {
  // Returns at once (EAGAIN) if `condition` is no longer 0.
  if (syscall(SYS_futex, &condition, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL, &pi_lock, 0) == 0)
    syscall(SYS_futex, &pi_lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);  // the bug: the condition is never signalled
  return 0;
}
