/* A futex wait made with the program's own system call instruction, as
 * libgomp makes its own (heddle traps libgomp's; not this program's): main
 * waits on a word that a thread it started would set and wake. Under heddle
 * the wait blocks the only thread allowed to run, so the iteration hangs, and
 * the hang report says why (cli_test.sh). Outside heddle it ends at once. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>

static unsigned word;

static long own_futex(unsigned* address, int op, unsigned value) {
  long result;
  register long r10 __asm__("r10") = 0;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "0"((long)SYS_futex), "D"(address), "S"((long)op), "d"((long)value), "r"(r10)
                   : "rcx", "r11", "memory");
  return result;
}

static void* waker(void* arg) {
  (void)arg;
  __atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
  own_futex(&word, FUTEX_WAKE_PRIVATE, 1);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, waker, NULL);
  while (__atomic_load_n(&word, __ATOMIC_SEQ_CST) == 0) own_futex(&word, FUTEX_WAIT_PRIVATE, 0);
  pthread_join(t, NULL);
  puts("woken");
  return 0;
}
