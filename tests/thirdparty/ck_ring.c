/* Concurrency Kit (libck-dev): a ck_ring SPSC ring of 4 slots carries 6
 * items from a producer to main, both yielding while it is full or empty;
 * main then waits for a ck_epoch grace period (in libck.so) before it lets
 * the items go. Its atomics (ck_pr_*) are inline assembly in its headers: the
 * ring's slots were reported as data races, and the race detector is off now
 * for a program that links libck (src/rt/known_libraries.cpp; a program that
 * uses only its headers links nothing heddle can find). A ck_spinlock is not
 * here: a thread spinning on one never reaches a scheduling point, and the
 * iteration ends in a hang report that says so (docs/pushbutton.md). */
#include <assert.h>
#include <ck_epoch.h>
#include <ck_ring.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static ck_ring_t ring;
static ck_ring_buffer_t buffer[4];
static long items[6];

static void* producer(void* arg) {
  (void)arg;
  for (int i = 0; i < 6; ++i) {
    items[i] = i * 3;
    while (!ck_ring_enqueue_spsc(&ring, buffer, &items[i])) sched_yield();
  }
  return NULL;
}

int main(void) {
  pthread_t p;
  ck_ring_init(&ring, 4);
  pthread_create(&p, NULL, producer, NULL);
  for (int i = 0; i < 6; ++i) {
    void* item;
    while (!ck_ring_dequeue_spsc(&ring, buffer, &item)) sched_yield();
    assert(*(long*)item == i * 3);
  }
  pthread_join(p, NULL);
  static ck_epoch_t epoch;
  static ck_epoch_record_t record;
  ck_epoch_init(&epoch);
  ck_epoch_register(&epoch, &record, NULL);
  ck_epoch_synchronize(&record);
  puts("ok");
  return 0;
}
