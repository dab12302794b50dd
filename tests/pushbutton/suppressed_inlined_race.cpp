// expect: assertion total == 2
// heddle: --suppressions {source_dir}/suppressed_inlined_race.supp
/* A benign race, as in Boost.Lockfree at -O2: the code that races is a
 * library's, inlined into the program's function. Each worker reads a hint
 * bit of a std::vector<bool> without the lock (and takes the lock to set it
 * when it reads false), so the read races with the other worker's write;
 * both are std::_Bit_reference's operators from <bits/stl_bvector.h>,
 * inlined into `worker`, with no frame of their own on the call stack. The
 * suppressions file names the library function (race:std::_Bit_reference),
 * which must match the inlined frame, as ThreadSanitizer's symbolizer shows
 * it; then heddle finds the program's real bug, a lost update on `total`. */
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
  const int seen = __atomic_load_n(&total, __ATOMIC_SEQ_CST);
  __atomic_store_n(&total, seen + 1, __ATOMIC_SEQ_CST);
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
