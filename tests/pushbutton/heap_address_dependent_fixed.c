// The twin of heap_address_dependent.c: the update under the lock.
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned address_hash(const void* p) {
  uintptr_t h = (uintptr_t)p;
  h ^= h >> 13;
  h *= 0x9e3779b97f4a7c15u;
  return (unsigned)(h >> 59);  // 0..31
}

static void* worker(void* arg) {
  const unsigned rounds = address_hash(arg) % 7;
  for (unsigned i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  const int seen = counter;
  sched_yield();
  counter = seen + 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  char* blocks[2];
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) blocks[i] = malloc(24 + 40 * i);
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, worker, blocks[i]);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < 2; ++i) free(blocks[i]);
  printf("counter = %d\n", counter);
  assert(counter == 2);
  return 0;
}
