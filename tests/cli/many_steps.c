/* Two threads take turns on a mutex 500 times each: a program that passes,
 * but needs more decisions than a small --max-steps allows. The CLI tests
 * check that `heddle run` says its iterations were cut. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void* work(void* arg) {
  (void)arg;
  for (int i = 0; i < 500; ++i) {
    pthread_mutex_lock(&m);
    ++count;
    pthread_mutex_unlock(&m);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  work(0);
  pthread_join(t, 0);
  assert(count == 1000);
  return 0;
}
