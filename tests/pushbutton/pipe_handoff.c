// expect: data_race (message+4): write by operation 2
// A worker hands main a message through a pipe: it fills a buffer, writes
// one byte to the pipe, and main, woken in poll(), reads the byte and then
// the buffer. Here the worker writes the message's last field after the
// byte: main's read of it races with that write. The write to the pipe
// orders what the worker did before it with what main does after it read
// the byte, as it does for ThreadSanitizer: before heddle made descriptors
// an edge of happens-before, the correct twin's buffer was reported as a data
// race too, and so was a value libuv's uv_async_send hands its loop
// (src/rt/posix_descriptors.cpp).
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
  if (write(fds[1], "m", 1) != 1) return arg;
  message.checksum = 7;
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
