// The fixed twin of event_loop_wakeup.c: the worker stores its result before
// it wakes the loop.
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
  pthread_mutex_lock(&lock);
  result = 42;
  pthread_mutex_unlock(&lock);
  if (write(event, &one, sizeof one) != sizeof one) return arg;
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
