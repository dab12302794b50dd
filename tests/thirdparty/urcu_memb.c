/* liburcu (memb flavour, liburcu-dev): a writer replaces a shared config
 * twice with rcu_xchg_pointer, and after synchronize_rcu marks the old one
 * dead and frees it; two readers read it under rcu_read_lock. A reader never
 * sees a dead config, and the values it sees only grow. liburcu waits for its
 * readers on a futex through syscall() (modelled); each reader registers its
 * thread_local record in a list synchronize_rcu walks, which fibers cannot
 * give (the run is refused there: known_library.sh). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu/urcu-memb.h>

struct config { int value; int alive; };
static struct config* current;

static void* reader(void* arg) {
  (void)arg;
  urcu_memb_register_thread();
  int last = 0;
  for (int i = 0; i < 3; ++i) {
    urcu_memb_read_lock();
    struct config* c = rcu_dereference(current);
    assert(c->alive == 1);
    assert(c->value >= last);
    last = c->value;
    urcu_memb_read_unlock();
  }
  urcu_memb_unregister_thread();
  return NULL;
}

int main(void) {
  struct config* first = malloc(sizeof *first);
  first->value = 1; first->alive = 1;
  current = first;
  pthread_t r1, r2;
  pthread_create(&r1, NULL, reader, NULL);
  pthread_create(&r2, NULL, reader, NULL);
  for (int v = 2; v <= 3; ++v) {
    struct config* next = malloc(sizeof *next);
    next->value = v; next->alive = 1;
    struct config* old = rcu_xchg_pointer(&current, next);
    urcu_memb_synchronize_rcu();
    old->alive = 0;
    free(old);
  }
  pthread_join(r1, NULL);
  pthread_join(r2, NULL);
  printf("value %d\n", current->value);
  free(current);
  return 0;
}
