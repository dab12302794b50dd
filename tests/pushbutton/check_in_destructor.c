// expect: assertion Assertion `total == 2' failed
// heddle: --detect-races=false
// Two threads add to a plain int without a lock; the program checks the total
// only in its destructor (run by exit() after main returns: the loader calls
// the program's destructors last). When a thread runs between the other's
// read and write, an update is lost and the check fails, so the bug is found
// only if the fork server's child runs the program's own destructors.
#include <assert.h>
#include <pthread.h>

static int total;

static void* add(void* arg) {
  (void)arg;
  total = total + 1;
  return NULL;
}

__attribute__((destructor)) static void check_total(void) { assert(total == 2); }

int main(void) {
  pthread_t a, b;
  total = 0;
  pthread_create(&a, NULL, add, NULL);
  pthread_create(&b, NULL, add, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
