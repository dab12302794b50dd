// expect: assertion c->ready
// Connections come from a free list and go back to it; each is set up once,
// by whichever of two threads uses it first (pthread_once on the connection's
// own once control). A recycled connection keeps the control of its last
// life: it counts as done, its setup never runs again, and its user finds it
// not ready. (Every recycle must set the control back to PTHREAD_ONCE_INIT.)
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

struct connection {
  pthread_once_t setup_once;
  int ready;
  struct connection* next_free;
};

static struct connection* free_list = NULL;
static struct connection* current = NULL;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct connection* get_connection(void) {
  struct connection* c = free_list;
  if (c != NULL) {
    free_list = c->next_free;
    c->ready = 0;  // the bug: setup_once is not set back to PTHREAD_ONCE_INIT
    return c;
  }
  c = malloc(sizeof *c);
  c->setup_once = (pthread_once_t)PTHREAD_ONCE_INIT;
  c->ready = 0;
  return c;
}

static void put_connection(struct connection* c) {
  c->next_free = free_list;
  free_list = c;
}

static void setup(void) { current->ready = 1; }

static void* user(void* arg) {
  pthread_mutex_lock(&lock);
  struct connection* c = current;
  pthread_once(&c->setup_once, setup);
  assert(c->ready);
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  for (int round = 0; round < 2; ++round) {
    current = get_connection();
    pthread_t a, b;
    pthread_create(&a, NULL, user, NULL);
    pthread_create(&b, NULL, user, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    put_connection(current);
  }
  return 0;
}
