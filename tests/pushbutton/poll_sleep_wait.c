// expect: data_race result
// The main thread waits for a worker's result by sleeping in poll(NULL, 0, 1)
// until a flag is set, as liburcu waits for its readers. poll with no
// descriptors is a sleep on virtual time under control, so the worker gets to
// run. The bug: the flag is stored and loaded relaxed, which orders nothing,
// so the read of `result` races with the worker's write.
#include <poll.h>
#include <pthread.h>
#include <stddef.h>

static int result = 0;
static int ready = 0;

static void* worker(void* arg) {
  result = 42;
  __atomic_store_n(&ready, 1, __ATOMIC_RELAXED);  // the bug: release needed
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!__atomic_load_n(&ready, __ATOMIC_RELAXED)) poll(NULL, 0, 1);
  const int seen = result;
  pthread_join(t, NULL);
  return seen == 42 ? 0 : 1;
}
