/* The memory-model benchmark's program (benchmarks/pushbutton_bench.cpp, docs/
   performance.md): a producer hands 8 items to a consumer through a 4-slot
   ring of C11 atomics, the shape of an SPSC queue. With no argument the ring
   uses the orders such a queue uses (relaxed slots and own index, release
   stores and acquire loads of the other's index); with "seq_cst" every
   operation is seq_cst. Built with heddle's instrumentation; no heddle header. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

enum { capacity = 4, items = 8 };

static atomic_int slots[capacity];
static atomic_uint head; /* the consumer's next slot */
static atomic_uint tail; /* the producer's next slot */
static memory_order relaxed = memory_order_relaxed;
static memory_order acquire = memory_order_acquire;
static memory_order release = memory_order_release;

static void* produce(void* arg) {
  for (int i = 1; i <= items; ++i) {
    const unsigned t = atomic_load_explicit(&tail, relaxed);
    while (t - atomic_load_explicit(&head, acquire) == capacity) sched_yield();
    atomic_store_explicit(&slots[t % capacity], i, relaxed);
    atomic_store_explicit(&tail, t + 1, release);
  }
  return arg;
}

static void* consume(void* arg) {
  int sum = 0;
  for (int i = 1; i <= items; ++i) {
    const unsigned h = atomic_load_explicit(&head, relaxed);
    while (atomic_load_explicit(&tail, acquire) == h) sched_yield();
    sum += atomic_load_explicit(&slots[h % capacity], relaxed);
    atomic_store_explicit(&head, h + 1, release);
  }
  return sum == items * (items + 1) / 2 ? arg : (void*)1;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "seq_cst") == 0) relaxed = acquire = release = memory_order_seq_cst;
  pthread_t producer, consumer;
  void* result = NULL;
  pthread_create(&producer, NULL, produce, NULL);
  pthread_create(&consumer, NULL, consume, NULL);
  pthread_join(producer, NULL);
  pthread_join(consumer, &result);
  return result == NULL ? 0 : 1;
}
