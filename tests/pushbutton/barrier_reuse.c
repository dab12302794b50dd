// expect: assertion neighbour == round
// heddle: --detect-races=false
/* Workers exchange values in rounds: each writes its slot, waits at the
 * barrier, then reads its neighbour's slot. The barrier is reused for the next
 * round too early: a fast worker writes its next value before a slow one has
 * read the current one. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 2

static pthread_barrier_t barrier;
static int slots[WORKERS];

static void* worker(void* arg) {
  int me = (int)(intptr_t)arg;
  for (int round = 1; round <= ROUNDS; ++round) {
    slots[me] = round;
    pthread_barrier_wait(&barrier);
    int neighbour = slots[(me + 1) % WORKERS];
    assert(neighbour == round);
  }
  return NULL;
}

int main(void) {
  /* main sets the globals it relies on: the program also runs many times in
   * one process (tests/rt). */
  for (int i = 0; i < WORKERS; ++i) slots[i] = 0;
  pthread_barrier_init(&barrier, NULL, WORKERS);
  pthread_t t[WORKERS];
  for (intptr_t i = 0; i < WORKERS; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < WORKERS; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&barrier);
  puts("every round exchanged");
  return 0;
}
