// expect: assertion hits == WORKERS
/* C11 threads count hits; each reads the counter under the mutex and writes
 * it back under the mutex again, so two can read the same value. */
#include <assert.h>
#include <stdio.h>
#include <threads.h>

#define WORKERS 3

static mtx_t lock;
static int hits;

static int worker(void* arg) {
  (void)arg;
  mtx_lock(&lock);
  int seen = hits;
  mtx_unlock(&lock);
  mtx_lock(&lock);
  hits = seen + 1;
  mtx_unlock(&lock);
  return 0;
}

int main(void) {
  /* main sets the globals it relies on: the program also runs many times in
   * one process (tests/rt). */
  hits = 0;
  mtx_init(&lock, mtx_plain);
  thrd_t t[WORKERS];
  for (int i = 0; i < WORKERS; ++i) thrd_create(&t[i], worker, NULL);
  for (int i = 0; i < WORKERS; ++i) thrd_join(t[i], NULL);
  mtx_destroy(&lock);
  assert(hits == WORKERS);
  printf("%d hits\n", hits);
  return 0;
}
