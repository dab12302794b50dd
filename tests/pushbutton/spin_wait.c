// expect: assertion assertion failed: seen == 1
// heddle: --strategy dfs
// main waits for a worker's flag in a loop that only loads it (no yield, no
// sleep: as atomic_queue's and many hand-written spins with a pause
// instruction), then reads the value the worker published. The worker
// overwrites that value after raising the flag, so main may read 2. Under
// dfs, main (the lowest operation) kept running its spin in every schedule
// to --max-steps, the worker ran only in its last few steps, and every
// iteration was cut before main's work and assert ("passed 300 iterations,
// all cut"). libheddle-rt now yields in such a loop (tsan_runtime.cpp,
// atomic_point), and dfs lets another operation go first at a yield.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready, value, work;

static void* worker(void* arg) {
  (void)arg;
  atomic_store(&value, 1);
  atomic_store(&ready, 1);
  atomic_store(&value, 2);  // the bug: changed after it was published
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
