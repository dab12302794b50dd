// expect: assertion assertion failed: seen == 1
// heddle: --strategy dfs
// spin_wait.c fixed: the worker publishes its last value, so main, once its
// spin sees the flag, reads 1 in every schedule.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready, value, work;

static void* worker(void* arg) {
  (void)arg;
  atomic_store(&value, 2);
  atomic_store(&value, 1);
  atomic_store(&ready, 1);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!atomic_load_explicit(&ready, memory_order_acquire)) {
  }
  const int seen = atomic_load(&value);
  // Work after the wait: steps that an iteration cut at --max-steps in the
  // middle of the spin never reaches, nor the assert after them.
  for (int i = 0; i < 64; ++i) atomic_fetch_add(&work, 1);
  pthread_join(t, NULL);
  printf("seen %d\n", seen);
  assert(seen == 1);
  return 0;
}
