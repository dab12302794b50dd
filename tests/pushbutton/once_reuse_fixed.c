// The fixed twin of once_reuse.c: a recycled connection's once control is
// set back to PTHREAD_ONCE_INIT, and the setup runs again in its new life. In
// glibc the state of a once control is the control word itself, so a control
// initialized again in memory that held a finished one (here recycled by the
// program, as well when free hands the memory to malloc again) is not done.
// The same holds for std::call_once and std::once_flag, which libstdc++
// builds on pthread_once.
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
    c->ready = 0;
    c->setup_once = (pthread_once_t)PTHREAD_ONCE_INIT;
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

static int setups = 0;

static void setup(void) {
  current->ready = 1;
  ++setups;
}

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
  assert(setups == 2);
  return 0;
}
