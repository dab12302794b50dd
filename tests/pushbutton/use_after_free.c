// expect: crash use after free: read of 4 bytes
// A cache of the current configuration: the reader keeps a pointer it took
// under the lock and reads through it later, also under the lock. If the
// updater runs in between, it has replaced and freed that configuration: the
// read is ordered after the free by the lock (no data race), a use after free.
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
  struct config* seen = current;
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  printf("version %d\n", seen->version);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  free(current);
  return 0;
}
