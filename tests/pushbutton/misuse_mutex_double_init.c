// expect: api_misuse pthread_mutex_init of a mutex that is already initialized
/* A "reset" routine a worker calls re-initializes the statistics mutex the
 * main thread already set up (and may hold). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t stats_lock;
static int requests;

static void reset_stats(void) {
  pthread_mutex_init(&stats_lock, NULL);
  requests = 0;
}

static void* worker(void* arg) {
  (void)arg;
  reset_stats();
  pthread_mutex_lock(&stats_lock);
  ++requests;
  pthread_mutex_unlock(&stats_lock);
  return NULL;
}

int main(void) {
  pthread_mutex_init(&stats_lock, NULL);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  pthread_mutex_destroy(&stats_lock);
  printf("%d requests\n", requests);
  return 0;
}
