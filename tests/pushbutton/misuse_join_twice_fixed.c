/* The error handler does not join: shutdown already did. */
#include <pthread.h>
#include <stdio.h>

static pthread_t flusher;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int flushed;

static void* flush(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  flushed = 0; /* the disk is full */
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void on_error(void) { puts("flush failed"); }

int main(void) {
  pthread_create(&flusher, NULL, flush, NULL);
  pthread_join(flusher, NULL);
  pthread_mutex_lock(&lock);
  int ok = flushed;
  pthread_mutex_unlock(&lock);
  if (!ok) on_error();
  puts("shut down");
  return 0;
}
