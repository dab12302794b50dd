// expect: hang blocked in read()
// heddle: --iteration-timeout 300ms
// replays: 10
// main writes one byte to a pipe and starts a worker that reads it. The worker
// reads a second byte if main asked for more before the worker looked, but
// nobody ever writes it: the worker waits in read() forever, and the watchdog
// reports a hang naming the call. (A blocking call the runtime does not model
// runs as one step, so the data it waits for must already be there.)
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
  if (pipe(fds) != 0 || write(fds[1], "x", 1) != 1) return 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  more = 1;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
