// expect: assertion c != NULL
/* The worker reads the configuration the main thread publishes after it has
 * started the worker: if the worker runs first, it finds none. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

struct config {
  int threads;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct config* config;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  struct config* c = config;
  pthread_mutex_unlock(&lock);
  assert(c != NULL);
  printf("%d threads\n", c->threads);
  return NULL;
}

int main(void) {
  /* main sets the globals it relies on: the program also runs many times in
   * one process (tests/rt). */
  config = NULL;
  static struct config loaded = {4};
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  config = &loaded;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
