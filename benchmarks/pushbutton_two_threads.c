/* The fork server benchmark's program (benchmarks/pushbutton_bench.cpp): two
   threads, each incrementing a counter 10 times under a pthread mutex; no
   heddle header. */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter = 0;

static void* increment(void* arg) {
  for (int i = 0; i < 10; ++i) {
    pthread_mutex_lock(&lock);
    ++counter;
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, increment, NULL);
  pthread_create(&b, NULL, increment, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return counter == 20 ? 0 : 1;
}
