// expect: api_misuse pthread_mutex_unlock of a mutex that is not locked
/* The error path of a worker unlocks, and then the common exit unlocks again. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int queued;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&queue_lock);
  if (queued >= 1) {
    pthread_mutex_unlock(&queue_lock); /* full: give up */
  } else {
    ++queued;
  }
  pthread_mutex_unlock(&queue_lock);
  return NULL;
}

int main(void) {
  /* main sets the globals it relies on: the program also runs many times in
   * one process (tests/rt). */
  queued = 0;
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("%d queued\n", queued);
  return 0;
}
