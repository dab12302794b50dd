// expect: assertion assertion failed: counter == 2
// heddle: --detect-races=false
// A lost update whose schedule depends on addresses and clocks: each worker
// takes a lock a number of times that depends on a hash of the address of a
// global and of a function, and yields once more when its clocks read an odd
// sum. A replay is a new process: with address randomization the program
// moves and the hash changes, and with real clocks the reading changes, so the
// replay took other steps and diverged (issue 15.7). heddle run turns
// randomization off and the clocks read virtual time, which the trace fixes:
// the harness replays the bug 100 times out of 100.
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned address_hash(const void* p) {
  uintptr_t h = (uintptr_t)p;
  h ^= h >> 17;
  h *= 0x9e3779b97f4a7c15u;
  return (unsigned)(h >> 59);  // 0..31
}

static void* worker(void* arg) {
  const unsigned rounds = address_hash(arg) % 5 + address_hash((const void*)&worker) % 3;
  for (unsigned i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
  }
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  struct timeval wall;
  gettimeofday(&wall, NULL);
  if ((now.tv_nsec / 1000 + wall.tv_usec + time(NULL)) % 2 == 1) sched_yield();
  const int seen = counter;
  sched_yield();
  counter = seen + 1;
  return NULL;
}

int main(void) {
  static char tags[2];
  pthread_t a, b;
  pthread_create(&a, NULL, worker, &tags[0]);
  pthread_create(&b, NULL, worker, &tags[1]);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("counter = %d\n", counter);
  assert(counter == 2);
  return 0;
}
