/* The reloader takes and releases the configuration lock itself. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int version;

static void* reloader(void* arg) {
  (void)arg;
  pthread_mutex_lock(&config_lock);
  ++version;
  pthread_mutex_unlock(&config_lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, reloader, NULL);
  pthread_join(t, NULL);
  pthread_mutex_lock(&config_lock);
  printf("version %d\n", version);
  pthread_mutex_unlock(&config_lock);
  return 0;
}
