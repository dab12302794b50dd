// The fixed twin of lost_update.c: the read and the write of the counter are
// one critical section.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* bump(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  counter = counter + 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  counter = 0;
  pthread_create(&a, NULL, bump, NULL);
  pthread_create(&b, NULL, bump, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("counter = %d\n", counter);
  assert(counter == 2);
  return 0;
}
