/* spurious_wakeup_masks_deadlock.c with both bugs fixed: the consumer waits
 * in a loop, and both threads take stats_lock before log_lock. */
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
    while (!full) pthread_cond_wait(&changed, &lock);
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
  pthread_mutex_lock(&stats_lock);
  pthread_mutex_lock(&log_lock);
  pthread_mutex_unlock(&log_lock);
  pthread_mutex_unlock(&stats_lock);
  pthread_join(t, NULL);
  return 0;
}
