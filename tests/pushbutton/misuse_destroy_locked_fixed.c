/* The main thread joins the worker before it destroys the session's mutex. */
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
  pthread_join(t, NULL);
  pthread_mutex_destroy(&s.lock);
  puts("session closed");
  return 0;
}
