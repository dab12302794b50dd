// The fixed twin of hang_in_read.c: main always writes the byte.
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started = 0;
static int fds[2];

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  started = 1;
  pthread_mutex_unlock(&lock);
  char byte;
  return read(fds[0], &byte, 1) == 1 ? NULL : arg;
}

int main(void) {
  if (pipe(fds) != 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  (void)started;
  pthread_mutex_unlock(&lock);
  if (write(fds[1], "x", 1) != 1) return 2;
  pthread_join(t, NULL);
  return 0;
}
