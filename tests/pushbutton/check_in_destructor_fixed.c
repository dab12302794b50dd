// The fixed twin of check_in_destructor.c: each addition is one critical
// section, so the destructor's check holds.
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void* add(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  total = total + 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

__attribute__((destructor)) static void check_total(void) { assert(total == 2); }

int main(void) {
  pthread_t a, b;
  total = 0;
  pthread_create(&a, NULL, add, NULL);
  pthread_create(&b, NULL, add, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
