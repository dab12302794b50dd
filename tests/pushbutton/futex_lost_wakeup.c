// expect: deadlock waits for atomic
// A one-shot event on the futex system call, called directly: the waiter
// checks `ready`, then reads the sequence word and sleeps on it unless it has
// changed. It reads the sequence after the check: a signal that comes between
// the two bumps the sequence before the waiter reads it, so the waiter sleeps
// on the new value, which no one will wake again (a lost wake-up).
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static int ready = 0;
static unsigned sequence = 0;

static void* waiter(void* arg) {
  while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
    const unsigned seen = __atomic_load_n(&sequence, __ATOMIC_ACQUIRE);  // the bug: read after the check
    syscall(SYS_futex, &sequence, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
  }
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
  __atomic_fetch_add(&sequence, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &sequence, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  pthread_join(t, NULL);
  return 0;
}
