// The fixed twin of exit_status_order.c: main joins the worker before it
// reads the flag.
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
  pthread_join(t, NULL);
  pthread_mutex_lock(&lock);
  const int seen = ready;
  pthread_mutex_unlock(&lock);
  if (!seen) fprintf(stderr, "the worker was not ready\n");
  return seen ? 0 : 1;
}
