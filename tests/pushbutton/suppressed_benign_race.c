// expect: assertion total == 2
// heddle: --suppressions {source_dir}/suppressed_benign_race.supp
/* A benign race by design, as in Boost.Lockfree's freelist: peek_hint reads
 * `hint` without a lock and throws the value away when it is stale. The
 * suppressions file next to this program names it (race:peek_hint), so heddle
 * counts it instead of reporting it, and finds the program's real bug: a lost
 * update on `total`. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int hint;
static int total;

// Not inlined: a suppression names a function the symbolizer can see as a frame.
__attribute__((noinline)) static int peek_hint(void) { return hint; }

static void* worker(void* arg) {
  (void)arg;
  if (peek_hint() == 0) {
    pthread_mutex_lock(&lock);
    hint = 1;
    pthread_mutex_unlock(&lock);
  }
  int seen = __atomic_load_n(&total, __ATOMIC_SEQ_CST);
  __atomic_store_n(&total, seen + 1, __ATOMIC_SEQ_CST);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(total == 2);
  return 0;
}
