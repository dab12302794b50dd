// expect: exit_code exited with status 1
// The main thread reads a flag a worker sets, without waiting for the worker:
// when main looks first, the program exits with status 1.
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ready = 0;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ready = 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  const int seen = ready;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  if (!seen) fprintf(stderr, "the worker was not ready\n");
  return seen ? 0 : 1;
}
