/* suppressed_benign_race.c with the lost update fixed; the benign race on
 * `hint` stays, and the suppressions file keeps it out of the report. */
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
  __atomic_fetch_add(&total, 1, __ATOMIC_SEQ_CST);
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
