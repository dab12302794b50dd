// The twin of use_after_free.c: the reader takes the current configuration
// again each time it holds the lock, so it never reads a replaced one.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct config {
  int version;
};

static struct config* current;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* update(void* arg) {
  (void)arg;
  struct config* fresh = malloc(sizeof *fresh);
  fresh->version = 2;
  pthread_mutex_lock(&lock);
  struct config* old = current;
  current = fresh;
  free(old);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  current = malloc(sizeof *current);
  current->version = 1;
  pthread_t t;
  pthread_create(&t, NULL, update, NULL);
  pthread_mutex_lock(&lock);
  int first = current->version;
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  printf("version %d then %d\n", first, current->version);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  free(current);
  return 0;
}
