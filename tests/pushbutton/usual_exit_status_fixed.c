/* usual_exit_status.c with the update made atomic: it still exits 6 every
 * time, which is no bug. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static int counter;

static void* bump(void* arg) {
  (void)arg;
  __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, bump, NULL);
  pthread_create(&b, NULL, bump, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);
  exit(6);
}
