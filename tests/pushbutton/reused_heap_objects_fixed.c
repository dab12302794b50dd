// Workers take blocks from the heap, each holding a mutex set up by
// PTHREAD_MUTEX_INITIALIZER (as a std::mutex is, never destroyed) and an
// atomic, use them and free them; main did the same before it started them,
// so the C library hands its freed block to whichever thread asks next. Which
// thread that is differs between backends (one heap arena per OS thread under
// threads, one for every operation under fibers): heddle must see each
// allocated block's mutex and atomic as new objects, so that the object ids
// the strategies learn from, and so every schedule of a seed, are the same on
// both backends (backends_agree.sh). Fixed: each worker adds its rounds to the
// total with one fetch_add.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define WORKERS 3
#define ROUNDS 2

struct cell {
  pthread_mutex_t lock;
  atomic_int uses;
  int value;
};

static atomic_int total;

static struct cell* new_cell(void) {
  struct cell* c = malloc(sizeof *c);
  const pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;
  c->lock = unlocked;
  atomic_init(&c->uses, 0);
  c->value = 0;
  return c;
}

static void use(struct cell* c) {
  pthread_mutex_lock(&c->lock);
  ++c->value;
  pthread_mutex_unlock(&c->lock);
  atomic_fetch_add(&c->uses, 1);
}

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; ++i) {
    struct cell* c = new_cell();
    use(c);
    use(c);
    atomic_fetch_add(&total, atomic_load(&c->uses) / 2);
    free(c);
  }
  return NULL;
}

int main(void) {
  struct cell* c = new_cell();
  use(c);
  free(c);
  pthread_t threads[WORKERS];
  for (int i = 0; i < WORKERS; ++i) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < WORKERS; ++i) pthread_join(threads[i], NULL);
  assert(atomic_load(&total) == WORKERS * ROUNDS);
  return 0;
}
