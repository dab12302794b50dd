// expect: hang blocked in read()
// heddle: --iteration-timeout 300ms
// replays: 10
// A worker announces that it started, then reads a byte from a pipe; main
// writes the byte only if it saw the announcement. When main looks first the
// worker waits in read() forever: the watchdog reports a hang naming the call.
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
  const int seen = started;
  pthread_mutex_unlock(&lock);
  if (seen && write(fds[1], "x", 1) != 1) return 2;
  pthread_join(t, NULL);
  return 0;
}
