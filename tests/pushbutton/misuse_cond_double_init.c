// expect: api_misuse pthread_cond_init of a condition variable that is already initialized
/* Each worker "sets up" the shared condition variable when it starts, so the
 * second one initializes it again (possibly under a waiter). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done;
static int finished;

static void* worker(void* arg) {
  (void)arg;
  pthread_cond_init(&done, NULL);
  pthread_mutex_lock(&lock);
  ++finished;
  pthread_cond_broadcast(&done);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("%d finished\n", finished);
  return 0;
}
