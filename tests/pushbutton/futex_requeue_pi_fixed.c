// The twin of futex_requeue_pi.c: main signals the condition. Either the
// worker waits first, and main's FUTEX_CMP_REQUEUE_PI wakes it holding the
// lock word (which main held, and let go), or main signals first and the
// worker's wait fails at once with EAGAIN.
#include <assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned condition = 0;
static unsigned pi_lock = 0;
static int shared;

static void* worker(void* arg) {
  const long r = syscall(SYS_futex, &condition, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL, &pi_lock, 0);
  if (r == 0) {
    assert(shared == 1);  // it holds the lock, taken after main's update
    syscall(SYS_futex, &pi_lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
  } else {
    assert(errno == EAGAIN);
  }
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (syscall(SYS_futex, &pi_lock, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) != 0) {
  }
  shared = 1;
  __atomic_store_n(&condition, 1, __ATOMIC_RELEASE);
  // Wakes the worker, which then takes the lock word once main lets it go.
  syscall(SYS_futex, &condition, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (uintptr_t)0, &pi_lock, 1);
  syscall(SYS_futex, &pi_lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
  pthread_join(t, NULL);
  return 0;
}
