// The twin of poll_sleep_wait.c: the flag is stored with release and loaded
// with acquire, so the worker's write of `result` happens before main's read.
// The wait also sleeps with select() on no descriptors, the other common way.
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/select.h>

static int result = 0;
static int ready = 0;

static void* worker(void* arg) {
  result = 42;
  __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  for (int turn = 0; !__atomic_load_n(&ready, __ATOMIC_ACQUIRE); ++turn) {
    if (turn % 2 == 0) {
      poll(NULL, 0, 1);
    } else {
      struct timeval pause_for = {0, 1000};
      select(0, NULL, NULL, NULL, &pause_for);
    }
  }
  const int seen = result;
  pthread_join(t, NULL);
  return seen == 42 ? 0 : 1;
}
