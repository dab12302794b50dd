// expect: data_race last_finisher
// Two workers each mark their own slot done (no race: different bytes) and
// record themselves as the last finisher in a plain int both write: a data
// race. The assertion checks only the slots and never fails; the race
// detector reports the race anyway, in the first iteration that runs both.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static char done[2];
static int last_finisher;

static void* work(void* arg) {
  const int id = (int)(long)arg;
  done[id] = 1;
  last_finisher = id;
  return NULL;
}

int main(void) {
  pthread_t a, b;
  done[0] = done[1] = 0;  // fresh state, also when main runs more than once in a process
  pthread_create(&a, NULL, work, (void*)0L);
  pthread_create(&b, NULL, work, (void*)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("worker %d finished last\n", last_finisher);
  assert(done[0] && done[1]);
  return 0;
}
