/* spurious_wakeup_in_if.c waiting in a loop, as POSIX asks: a spurious
 * wake-up only waits again. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t set = PTHREAD_COND_INITIALIZER;
static int done;

static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!done) pthread_cond_wait(&set, &lock);
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
