// The fixed twin of race_without_failure.c: the last finisher is recorded
// under a mutex.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static char done[2];
static int last_finisher;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* work(void* arg) {
  const int id = (int)(long)arg;
  done[id] = 1;
  pthread_mutex_lock(&lock);
  last_finisher = id;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  done[0] = done[1] = 0;  // fresh state, also when main runs more than once in a process
  pthread_create(&a, NULL, work, (void*)0L);
  pthread_create(&b, NULL, work, (void*)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("worker %d finished last\n", last_finisher);
  assert(done[0] && done[1]);
  return 0;
}
