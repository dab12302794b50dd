/* The consumer waits in a loop on the condition itself, so an early signal
 * is not needed. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t item_ready = PTHREAD_COND_INITIALIZER;
static int item;
static int available;

static void* consumer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!available) pthread_cond_wait(&item_ready, &lock);
  printf("consumed %d\n", item);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  /* main sets the globals it relies on: the program also runs many times in
   * one process (tests/rt). */
  available = 0;
  pthread_t t;
  pthread_create(&t, NULL, consumer, NULL);
  pthread_mutex_lock(&lock);
  item = 42;
  available = 1;
  pthread_cond_signal(&item_ready);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
