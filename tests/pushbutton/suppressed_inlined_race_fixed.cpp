/* suppressed_inlined_race.cpp with the lost update fixed; the benign race on
 * the hint bit stays, and the suppressions file keeps it out of the report. */
#include <pthread.h>

#include <cassert>
#include <vector>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static std::vector<bool> hints(1);
static int total;

static void* worker(void*) {
  if (!hints[0]) {
    pthread_mutex_lock(&lock);
    hints[0] = true;
    pthread_mutex_unlock(&lock);
  }
  __atomic_fetch_add(&total, 1, __ATOMIC_SEQ_CST);
  return nullptr;
}

int main() {
  pthread_t a, b;
  pthread_create(&a, nullptr, worker, nullptr);
  pthread_create(&b, nullptr, worker, nullptr);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  assert(total == 2);
  return 0;
}
