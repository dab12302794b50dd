/* The caller that holds the cache lock uses the unlocked variant. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int entries;

static int cache_size_locked(void) { return entries; }

static int cache_size(void) {
  pthread_mutex_lock(&cache_lock);
  int n = cache_size_locked();
  pthread_mutex_unlock(&cache_lock);
  return n;
}

static void* insert(void* arg) {
  (void)arg;
  pthread_mutex_lock(&cache_lock);
  if (cache_size_locked() < 8) ++entries;
  pthread_mutex_unlock(&cache_lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, insert, NULL);
  pthread_join(t, NULL);
  printf("%d entries\n", cache_size());
  return 0;
}
