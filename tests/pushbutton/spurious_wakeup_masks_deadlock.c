// expect: deadlock mutex
/* Two bugs. The real one: shutdown takes the two locks in opposite orders in
 * the two threads (ABBA), a deadlock in production. The other: the consumer
 * waits with `if (!full)`, not `while`, so a spurious wake-up (POSIX allows
 * them; they are rare in production) makes it take an empty slot. When every
 * iteration may take spurious wake-ups, the second is what a run finds
 * first, nearly always, and the deadlock is masked. heddle explores spurious
 * wake-ups only in a share of the iterations, so it finds the deadlock. */
#include <assert.h>
#include <pthread.h>

enum { items = 24 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int full, slot;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static void* consumer(void* arg) {
  (void)arg;
  for (int i = 1; i <= items; ++i) {
    pthread_mutex_lock(&lock);
    if (!full) pthread_cond_wait(&changed, &lock);
    assert(slot == i);
    full = 0;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&stats_lock);
  pthread_mutex_lock(&log_lock);
  pthread_mutex_unlock(&log_lock);
  pthread_mutex_unlock(&stats_lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, consumer, NULL);
  for (int i = 1; i <= items; ++i) {
    pthread_mutex_lock(&lock);
    while (full) pthread_cond_wait(&changed, &lock);
    slot = i;
    full = 1;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&log_lock);
  pthread_mutex_lock(&stats_lock);
  pthread_mutex_unlock(&stats_lock);
  pthread_mutex_unlock(&log_lock);
  pthread_join(t, NULL);
  return 0;
}
