// expect: deadlock operation 1 (main) waits for atomic
// heddle: --memory-model rc11
// A futex with a count of waiters beside it, as libstdc++'s atomic::wait
// keeps one: the waiter counts itself in (a seq_cst increment), reads the
// version and sleeps on it; the notifier changes the version and calls the
// futex only if its seq_cst load of the count says someone waits. Here the
// notifier's change is a release store, which its load of the count may pass
// (as on x86, whose store buffer lets a load overtake a plain store): it
// reads 0 waiters, skips the wake, and main sleeps for ever. libstdc++ 12's
// notify_one after a release store is this program (the third-party audit,
// 2026-11-29). The twin changes the version with a seq_cst read-modify-write,
// as std::barrier's notify does: before heddle took the kernel's comparison
// for a seq_cst load of the word, rc11 let the notifier's load read the count
// from before main's increment although main had compared and slept, and the
// twin deadlocked too.
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic uint32_t version;
static atomic_int waiters;

static void* notifier(void* arg) {
  atomic_store_explicit(&version, 1, memory_order_release);
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
