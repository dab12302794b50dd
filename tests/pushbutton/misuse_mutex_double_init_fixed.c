/* The reset routine clears the statistics under the mutex instead of
 * re-initializing it. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t stats_lock;
static int requests;

static void reset_stats(void) {
  pthread_mutex_lock(&stats_lock);
  requests = 0;
  pthread_mutex_unlock(&stats_lock);
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
