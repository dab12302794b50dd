// The fixed twin of pipe_handoff.c: the worker fills the whole message
// before it writes to the pipe.
#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

struct message {
  int length;
  int checksum;
};
static struct message message;
static int fds[2];

static void* worker(void* arg) {
  message.length = 5;
  message.checksum = 7;
  if (write(fds[1], "m", 1) != 1) return arg;
  return NULL;
}

int main(void) {
  assert(pipe(fds) == 0);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  struct pollfd p = {.fd = fds[0], .events = POLLIN};
  assert(poll(&p, 1, -1) == 1);
  char byte;
  assert(read(fds[0], &byte, 1) == 1 && byte == 'm');
  int length = message.length, checksum = message.checksum;
  pthread_join(t, NULL);
  return length == 5 && checksum == 7 ? 0 : 1;
}
