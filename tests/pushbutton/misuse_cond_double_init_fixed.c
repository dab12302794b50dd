/* The condition variable is initialized once, before the workers start. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done;
static int finished;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++finished;
  pthread_cond_broadcast(&done);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_cond_init(&done, NULL);
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  pthread_cond_destroy(&done);
  printf("%d finished\n", finished);
  return 0;
}
