// expect: deadlock waits for operation 2
// A thread that waits for signals with sigwait, as pbzip2 keeps one for
// SIGINT and SIGTERM; the main thread stops it with SIGUSR1 once `stopping`
// is set. The bug: main sends the signal before it sets the flag. The signal
// thread may take the signal and look at the flag in between, find it unset,
// and wait again for a signal that no one will send; main then joins it
// forever.
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
  pthread_kill(t, SIGUSR1);  // the bug: before `stopping` is set
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
