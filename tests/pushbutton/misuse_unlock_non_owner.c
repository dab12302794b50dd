// expect: api_misuse pthread_mutex_unlock of a mutex locked by operation 1 (main), not by the caller
/* The main thread locks the configuration for a reload and hands the unlock
 * to the reloader thread: a mutex may only be unlocked by the thread that
 * locked it. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int version;

static void* reloader(void* arg) {
  (void)arg;
  ++version;
  pthread_mutex_unlock(&config_lock); /* "done: release the lock main took for us" */
  return NULL;
}

int main(void) {
  pthread_mutex_lock(&config_lock);
  pthread_t t;
  pthread_create(&t, NULL, reloader, NULL);
  pthread_join(t, NULL);
  pthread_mutex_lock(&config_lock);
  printf("version %d\n", version);
  pthread_mutex_unlock(&config_lock);
  return 0;
}
