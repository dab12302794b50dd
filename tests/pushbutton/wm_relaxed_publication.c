// expect: data_race data race on 4 bytes
// heddle: --memory-model rc11
// Publication of plain data through a relaxed flag, in C11 (<stdatomic.h>).
// The reader that sees the flag reads `payload`, a plain int the writer wrote
// before raising the flag; a relaxed store and load do not synchronize, so
// the two accesses are not ordered by happens-before: a data race, which the
// race detector reports under either memory model. Under rc11 its
// happens-before is the memory model's: only reading a release store (or its
// release sequence) with an acquire load orders them, as in the fixed twin.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

static int payload;
static atomic_int ready;

static void* writer(void* arg) {
  (void)arg;
  payload = 42;
  atomic_store_explicit(&ready, 1, memory_order_relaxed);  // the bug: must be memory_order_release
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
  if (atomic_load_explicit(&ready, memory_order_relaxed))  // and this memory_order_acquire
    assert(payload == 42);
  return NULL;
}

int main(void) {
  pthread_t w;
  pthread_t r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  return 0;
}
