// expect: assertion assertion failed: claims == 1
// heddle: --detect-races=false
// Check-then-act on a global no thread touched before: each worker claims a
// free slot by reading it, then writing its own id. The read and the write are
// the worker's first two accesses to the global, so a policy that makes an
// address a scheduling point only once a second thread has touched it never
// puts a preemption between them (issue 15.11). Globals are reachable from
// every thread: under --memory shared (the default) their accesses are points
// from the first touch. The race detector is off so the run goes on to the
// assertion.
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static int owner;  // 0: free; never written by main
static int claims;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* claim(void* arg) {
  if (owner == 0) {
    owner = (int)(intptr_t)arg;
    pthread_mutex_lock(&lock);
    ++claims;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, claim, (void*)1);
  pthread_create(&b, NULL, claim, (void*)2);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("slot owned by %d, claimed %d time(s)\n", owner, claims);
  assert(claims == 1);
  return 0;
}
