// The twin of sigwait_stop.c: main sets `stopping` before it sends SIGUSR1,
// so whichever way the two threads interleave, the signal thread sees the
// flag when it takes the signal.
#include <pthread.h>
#include <signal.h>
#include <stddef.h>

static sigset_t handled;
static int stopping = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* signal_thread(void* arg) {
  for (;;) {
    int sig = 0;
    sigwait(&handled, &sig);
    pthread_mutex_lock(&lock);
    const int stop = stopping;
    pthread_mutex_unlock(&lock);
    if (sig == SIGUSR1 && stop) return arg;
  }
}

int main(void) {
  sigemptyset(&handled);
  sigaddset(&handled, SIGUSR1);
  sigaddset(&handled, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &handled, NULL);
  pthread_t t;
  pthread_create(&t, NULL, signal_thread, NULL);
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_mutex_unlock(&lock);
  pthread_kill(t, SIGUSR1);
  pthread_join(t, NULL);
  return 0;
}
