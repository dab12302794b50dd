// The fixed twin of hang_in_read.c: main writes every byte the worker may
// read before it starts the worker.
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int more = 0;
static int fds[2];

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  const int reads = more ? 2 : 1;
  pthread_mutex_unlock(&lock);
  char byte;
  for (int i = 0; i < reads; ++i)
    if (read(fds[0], &byte, 1) != 1) return &fds;
  return arg;
}

int main(void) {
  if (pipe(fds) != 0 || write(fds[1], "xx", 2) != 2) return 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  more = 1;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
