// The twin of futex_ops.c: both workers update the counter under the lock.
#include <assert.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned gate, parking, done, pi_lock;
static int counter;

static long futex(unsigned* word, int op, unsigned value, uintptr_t value2, unsigned* word2, unsigned value3) {
  return syscall(SYS_futex, word, op, value, value2, word2, value3);
}

static void wait_for_gate(void) {
  while (__atomic_load_n(&gate, __ATOMIC_ACQUIRE) == 0) futex(&gate, FUTEX_WAIT_PRIVATE, 0, 0, NULL, 0);
}

static void lock(void) {
  while (futex(&pi_lock, FUTEX_LOCK_PI_PRIVATE, 0, 0, NULL, 0) != 0) {
  }
}

static void unlock(void) {
  const long r = futex(&pi_lock, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, NULL, 0);
  assert(r == 0);
}

// Atomic accesses, so that the bug is the lost update, not a data race.
static void increment(void) {
  const int seen = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
  sched_yield();
  __atomic_store_n(&counter, seen + 1, __ATOMIC_SEQ_CST);
}

static void finish(void) {
  // done += 1; wake main (waiting on done) if it was 1, that is, now 2.
  futex(&parking, FUTEX_WAKE_OP_PRIVATE, 0, 1, &done, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 1));
}

static void* first(void* arg) {
  wait_for_gate();
  lock();
  increment();
  unlock();
  finish();
  return arg;
}

static void* second(void* arg) {
  wait_for_gate();
  lock();
  increment();
  unlock();
  finish();
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, first, NULL);
  pthread_create(&b, NULL, second, NULL);
  __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
  // Wakes one waiter of the gate and moves the others to `parking`, then wakes them there.
  futex(&gate, FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, &parking, 1);
  futex(&parking, FUTEX_WAKE_PRIVATE, INT_MAX, 0, NULL, 0);
  unsigned seen;
  while ((seen = __atomic_load_n(&done, __ATOMIC_ACQUIRE)) != 2) futex(&done, FUTEX_WAIT_PRIVATE, seen, 0, NULL, 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("counter = %d\n", counter);
  assert(counter == 2);
  return 0;
}
