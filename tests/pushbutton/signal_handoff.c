// expect: deadlock waits for user
// A worker tells the main thread it is done by raising SIGUSR2 for the
// process, and main sleeps in sigsuspend until the handler has run, as lbzip2
// does. The bug: main blocks SIGUSR2 only after it has started the worker.
// The worker may finish first: the signal then finds main with SIGUSR2
// unblocked, its handler runs before main reaches sigsuspend, and main waits
// for a signal that was already delivered (a lost wake-up).
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

static volatile sig_atomic_t done = 0;
static int result = 0;

static void on_done(int sig) {
  (void)sig;
  done = 1;
}

static void* worker(void* arg) {
  result = 42;
  kill(getpid(), SIGUSR2);
  return arg;
}

int main(void) {
  struct sigaction act = {0};
  act.sa_handler = on_done;
  sigemptyset(&act.sa_mask);
  sigaction(SIGUSR2, &act, NULL);
  sigset_t usr2, old;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_sigmask(SIG_BLOCK, &usr2, &old);  // the bug: too late, the worker may already have raised it
  sigsuspend(&old);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_join(t, NULL);
  return done == 1 && result == 42 ? 0 : 1;
}
