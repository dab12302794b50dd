/* Google's pthreadpool (libpthreadpool-dev): a pool of 2 threads runs a loop
 * of 64 items twice with pthreadpool_parallelize_1d; main checks what the
 * items wrote after each call. The pool orders them with atomics in the
 * (uninstrumented) library: the race detector reported main's reads as racing
 * with the workers' writes, and is off for it now (known_libraries.cpp). Its
 * workers spin a million rounds before each futex wait, which cannot succeed
 * while one thread runs at a time: about 8 iterations/s. */
#include <assert.h>
#include <pthreadpool.h>
#include <stdio.h>
static long out[64];
static void task(void* ctx, size_t i) { (void)ctx; out[i] = (long)i * (long)i; }
int main(void) {
  pthreadpool_t pool = pthreadpool_create(2);
  assert(pool != NULL);
  assert(pthreadpool_get_threads_count(pool) == 2);
  for (int round = 0; round < 2; ++round) {
    pthreadpool_parallelize_1d(pool, task, NULL, 64, 0);
    long sum = 0;
    for (int i = 0; i < 64; ++i) sum += out[i];
    assert(sum == 85344);
  }
  pthreadpool_destroy(pool);
  puts("ok");
  return 0;
}
