/* The queue wakes its consumer, joins it, and only then destroys the
 * condition variable. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty;
static int closed;

static void* consumer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!closed) pthread_cond_wait(&nonempty, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  /* main sets the globals it relies on: the program also runs many times in
   * one process (tests/rt). */
  closed = 0;
  pthread_cond_init(&nonempty, NULL);
  pthread_t t;
  pthread_create(&t, NULL, consumer, NULL);
  pthread_mutex_lock(&lock);
  closed = 1;
  pthread_cond_broadcast(&nonempty);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  pthread_cond_destroy(&nonempty);
  puts("queue closed");
  return 0;
}
