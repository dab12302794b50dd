// The fixed twin of wm_relaxed_publication.c: the flag is a release store and
// an acquire load, so a reader that sees it synchronizes with the writer and
// its read of `payload` is ordered after the write.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

static int payload;
static atomic_int ready;

static void* writer(void* arg) {
  (void)arg;
  payload = 42;
  atomic_store_explicit(&ready, 1, memory_order_release);
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
  if (atomic_load_explicit(&ready, memory_order_acquire)) assert(payload == 42);
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
