// The fixed twin of futex_lost_wakeup.c: the waiter reads the sequence
// before it checks `ready`, so a signal in between makes its futex wait fail
// at once (EAGAIN) instead of sleeping. Also checks the other futex calls the
// runtime models: a timed FUTEX_WAIT_BITSET on CLOCK_REALTIME times out on
// virtual time, a relative FUTEX_WAIT with the wrong value fails with EAGAIN,
// and a wake with a bitset no waiter has wakes nobody.
#include <assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int ready = 0;
static unsigned sequence = 0;
static unsigned parked = 0;

static void* waiter(void* arg) {
  for (;;) {
    const unsigned seen = __atomic_load_n(&sequence, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) break;
    syscall(SYS_futex, &sequence, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
  }
  return arg;
}

static void* parker(void* arg) {
  // Waits with bitset 1 until main wakes bitset 1.
  while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) == 0)
    syscall(SYS_futex, &parked, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL, NULL, 1);
  return arg;
}

int main(void) {
  pthread_t t, p;
  pthread_create(&t, NULL, waiter, NULL);
  pthread_create(&p, NULL, parker, NULL);
  __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
  __atomic_fetch_add(&sequence, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &sequence, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  pthread_join(t, NULL);

  unsigned word = 5;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 3600;  // an hour of virtual time, no real time
  long r;
  do  // 0: a spurious wake-up, which futex(2) allows
    r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 5, &deadline, NULL,
                FUTEX_BITSET_MATCH_ANY);
  while (r == 0);
  assert(r == -1 && errno == ETIMEDOUT);
  const struct timespec second = {1, 0};
  r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 4, &second, NULL, 0);
  assert(r == -1 && errno == EAGAIN);

  // Bitset 2 meets no waiter of the parker's bitset 1.
  assert(syscall(SYS_futex, &parked, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 2) == 0);
  __atomic_store_n(&parked, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &parked, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 1);
  pthread_join(p, NULL);
  return 0;
}
