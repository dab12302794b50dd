/* bit_race.cpp with the vector<bool> behind a mutex: the two writes to one
 * word are ordered. */
#include <pthread.h>

#include <vector>

static std::vector<bool> flags(2);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct job {
  int index;
};

__attribute__((noinline)) static void set_flag(int i) {
  pthread_mutex_lock(&lock);
  flags[static_cast<std::size_t>(i)] = true;
  pthread_mutex_unlock(&lock);
}

static void* worker(void* arg) {
  set_flag(static_cast<job*>(arg)->index);
  return nullptr;
}

int main() {
  job first{0}, second{1};
  pthread_t a, b;
  pthread_create(&a, nullptr, worker, &first);
  pthread_create(&b, nullptr, worker, &second);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  return flags[0] && flags[1] ? 0 : 1;
}
