// expect: assertion assertion failed: result == 42
// main runs an event loop: it waits in epoll_wait on an eventfd that a worker
// writes to when its result is ready (as libuv's uv_queue_work and
// uv_async_send wake the loop), then in poll() on a pipe the worker writes a
// byte to. The worker wakes the loop before it stores the result, so main may
// read 0. Before heddle modelled descriptor waits, epoll_wait blocked the OS
// thread of the only operation allowed to run: every iteration of this and of
// its correct twin ended in a hang report ("operation 1 (main) is blocked in
// epoll_wait()"). Now the wait yields while another operation can run
// (src/rt/posix_descriptors.cpp).
#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int event, pipe_fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int result;

static void* worker(void* arg) {
  uint64_t one = 1;
  if (write(event, &one, sizeof one) != sizeof one) return arg;
  pthread_mutex_lock(&lock);
  result = 42;
  pthread_mutex_unlock(&lock);
  if (write(pipe_fds[1], "x", 1) != 1) return arg;
  return NULL;
}

int main(void) {
  event = eventfd(0, EFD_CLOEXEC);
  assert(event >= 0 && pipe(pipe_fds) == 0);
  int loop = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event watch = {.events = EPOLLIN, .data.fd = event};
  assert(epoll_ctl(loop, EPOLL_CTL_ADD, event, &watch) == 0);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  struct epoll_event ready;
  assert(epoll_wait(loop, &ready, 1, -1) == 1 && ready.data.fd == event);
  pthread_mutex_lock(&lock);
  assert(result == 42);
  pthread_mutex_unlock(&lock);
  struct pollfd p = {.fd = pipe_fds[0], .events = POLLIN};
  assert(poll(&p, 1, -1) == 1 && (p.revents & POLLIN));
  pthread_join(t, NULL);
  return 0;
}
