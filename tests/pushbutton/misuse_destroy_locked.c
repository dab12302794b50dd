// expect: api_misuse destroy
/* The main thread tears down the session's mutex as soon as it has asked the
 * worker to stop, while the worker may still hold it. */
#include <pthread.h>
#include <stdio.h>

struct session {
  pthread_mutex_t lock;
  int stopping;
  int bytes;
};

static void* worker(void* arg) {
  struct session* s = arg;
  pthread_mutex_lock(&s->lock);
  s->bytes += 512;
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

int main(void) {
  static struct session s;
  pthread_mutex_init(&s.lock, NULL);
  pthread_t t;
  pthread_create(&t, NULL, worker, &s);
  pthread_mutex_lock(&s.lock);
  s.stopping = 1;
  pthread_mutex_unlock(&s.lock);
  pthread_mutex_destroy(&s.lock);
  pthread_detach(t);
  puts("session closed");
  return 0;
}
