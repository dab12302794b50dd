// expect: assertion slot == i
// heddle: --detect-races=false
/* A one-slot buffer between a producer and a consumer, guarded by two
 * semaphores; the free-slot semaphore starts at 2, so the producer can write
 * a second item over one the consumer has not taken yet. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define ITEMS 4

static sem_t free_slots, full_slots;
static int slot;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 1; i <= ITEMS; ++i) {
    sem_wait(&free_slots);
    slot = i;
    sem_post(&full_slots);
  }
  return NULL;
}

int main(void) {
  sem_init(&free_slots, 0, 2); /* the bug: the buffer has one slot */
  sem_init(&full_slots, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  for (int i = 1; i <= ITEMS; ++i) {
    sem_wait(&full_slots);
    assert(slot == i);
    sem_post(&free_slots);
  }
  pthread_join(t, NULL);
  sem_destroy(&free_slots);
  sem_destroy(&full_slots);
  puts("all items consumed in order");
  return 0;
}
