// expect: assertion assertion failed: counter == 2
// heddle: --detect-races=false
// A lost update whose schedule depends on where malloc puts blocks: main
// allocates a block per worker, and each worker takes a lock a number of
// times that depends on a hash of its block's address. The fork server
// allocates for itself between iterations (the strategy's state, the steps
// it took), and a replay reads its trace first; if that came from the C
// library's heap, the program's blocks would land elsewhere in every
// iteration and in the replay, which would take other steps and diverge. The harness replays the bug 100 times out of 100 (and
// `heddle run --check-determinism` runs it without a complaint).
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
  const int seen = counter;
  sched_yield();
  counter = seen + 1;
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
