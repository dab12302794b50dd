// The fixed twin of wm_futex_waiters.c: the notifier changes the version with
// a seq_cst read-modify-write, which its load of the count cannot pass.
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic uint32_t version;
static atomic_int waiters;

static void* notifier(void* arg) {
  atomic_fetch_add_explicit(&version, 1, memory_order_seq_cst);
  if (atomic_load_explicit(&waiters, memory_order_seq_cst) != 0)
    syscall(SYS_futex, &version, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, notifier, NULL);
  atomic_fetch_add_explicit(&waiters, 1, memory_order_seq_cst);
  uint32_t seen;
  while ((seen = atomic_load_explicit(&version, memory_order_acquire)) == 0)
    syscall(SYS_futex, &version, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
  atomic_fetch_sub_explicit(&waiters, 1, memory_order_release);
  pthread_join(t, NULL);
  return 0;
}
