// expect: assertion assertion failed: counter == 2
// heddle: --detect-races=false
// Two threads bump a plain int without a lock: each reads, then writes, and a
// thread that runs between the two loses the other's update. Only memory
// scheduling points (heddle-cc instruments the accesses) can put it there; the
// race detector is off so the run goes on to the assertion.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int counter;

static void* bump(void* arg) {
  (void)arg;
  counter = counter + 1;
  return NULL;
}

int main(void) {
  pthread_t a, b;
  counter = 0;
  pthread_create(&a, NULL, bump, NULL);
  pthread_create(&b, NULL, bump, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("counter = %d\n", counter);
  assert(counter == 2);
  return 0;
}
