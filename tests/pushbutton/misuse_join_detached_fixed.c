/* The logger stays joinable and shutdown joins it. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int lines;

static void* logger(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++lines;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, logger, NULL);
  pthread_mutex_lock(&lock);
  ++lines;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  printf("%d lines\n", lines);
  return 0;
}
