// expect: assertion spurious wake-up
/* The waiter checks its condition with `if`, not `while`: a spurious wake-up,
 * which POSIX allows, lets it go on before the flag is set. The bug needs
 * one, so the report must say that a spurious wake-up made it (in the
 * interleaving's row and in the bug's summary line). */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t set = PTHREAD_COND_INITIALIZER;
static int done;

static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  if (!done) pthread_cond_wait(&set, &lock);
  assert(done);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_cond_signal(&set);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
