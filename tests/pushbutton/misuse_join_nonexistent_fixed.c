/* The pool starts and joins exactly POOL workers. */
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
  for (int i = 0; i < POOL; ++i) pthread_create(&pool[i], NULL, worker, NULL);
  for (int i = 0; i < POOL; ++i) pthread_join(pool[i], NULL);
  printf("%d started\n", started);
  return 0;
}
