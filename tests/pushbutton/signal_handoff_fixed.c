// The twin of signal_handoff.c: main blocks SIGUSR2 before it starts the
// worker, which inherits the mask. The signal stays pending until sigsuspend
// unblocks it, and only main can take it.
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
  pthread_sigmask(SIG_BLOCK, &usr2, &old);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!done) sigsuspend(&old);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_join(t, NULL);
  return done == 1 && result == 42 ? 0 : 1;
}
