// expect: api_misuse pthread_join of a thread that was already joined
/* Shutdown joins the flusher, and so does the error handler that shutdown
 * calls when the flush failed. */
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

static void on_error(void) { pthread_join(flusher, NULL); }

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
