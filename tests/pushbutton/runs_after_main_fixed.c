// The fixed twin of runs_after_main.c: main joins the worker before it shuts
// the service down.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int shut_down = 0;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  if (shut_down) {
    fprintf(stderr, "the service was used after shutdown\n");
    abort();
  }
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  pthread_mutex_lock(&lock);
  shut_down = 1;
  pthread_mutex_unlock(&lock);
  return 0;
}
