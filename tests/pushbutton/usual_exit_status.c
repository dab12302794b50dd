// expect: assertion counter == 2
/* A program whose normal exit status is 6 (a tool that reports "done, with
 * warnings" this way), with a lost update: two threads increment a counter
 * without a lock. heddle run must take 6 as the program's usual status (it
 * learns it from the first iteration that exits) and find the assertion,
 * not report every run as an exit_code bug. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static int counter;

static void* bump(void* arg) {
  (void)arg;
  int seen = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
  __atomic_store_n(&counter, seen + 1, __ATOMIC_SEQ_CST);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, bump, NULL);
  pthread_create(&b, NULL, bump, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);
  exit(6);
}
