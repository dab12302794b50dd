// expect: api_misuse pthread_join of a thread that does not exist
/* The pool starts one worker fewer than its size (an off-by-one in the
 * start loop) but joins them all: the last id was never created. */
#include <pthread.h>
#include <stdio.h>

#define POOL 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++started;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  static pthread_t pool[POOL];
  for (int i = 1; i < POOL; ++i) pthread_create(&pool[i - 1], NULL, worker, NULL);
  for (int i = 0; i < POOL; ++i) pthread_join(pool[i], NULL);
  printf("%d started\n", started);
  return 0;
}
