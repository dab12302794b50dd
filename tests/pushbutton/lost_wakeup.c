// expect: deadlock condition_variable
/* The consumer waits without checking whether the producer already
 * signalled: a signal before the wait is lost and the consumer waits forever. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t item_ready = PTHREAD_COND_INITIALIZER;
static int item;

static void* consumer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  pthread_cond_wait(&item_ready, &lock);
  printf("consumed %d\n", item);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, consumer, NULL);
  pthread_mutex_lock(&lock);
  item = 42;
  pthread_cond_signal(&item_ready);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
