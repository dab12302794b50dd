// expect: assertion used after shutdown
// A detached worker checks a shutdown flag that main sets just before it
// returns. The worker can only see the flag set if it runs after main's last
// unlock: at main's return, which is a scheduling point, as in a real process
// where the other threads run until exit() ends them.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int shut_down = 0;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  if (shut_down) {
    fprintf(stderr, "the service was used after shutdown\n");
    abort();
  }
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_detach(t);
  pthread_mutex_lock(&lock);
  shut_down = 1;
  pthread_mutex_unlock(&lock);
  return 0;
}
