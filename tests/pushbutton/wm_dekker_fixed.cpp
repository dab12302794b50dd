// The fixed twin of wm_dekker.cpp: the flags and the turn are seq_cst, so the
// two threads' stores and loads of the flags are totally ordered and at most
// one of them reads the other's flag as down.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
std::atomic<bool> wants[2];
std::atomic<int> turn{0};
std::atomic<int> inside{0};

void lock(int me) {
  const int other = 1 - me;
  wants[me].store(true);
  while (wants[other].load()) {
    if (turn.load() != me) {
      wants[me].store(false);
      while (turn.load() != me) std::this_thread::yield();
      wants[me].store(true);
    }
  }
}

void unlock(int me) {
  turn.store(1 - me);
  wants[me].store(false);
}

void worker(int me) {
  lock(me);
  const int others = inside.fetch_add(1, std::memory_order_relaxed);
  assert(others == 0);
  inside.fetch_sub(1, std::memory_order_relaxed);
  unlock(me);
}
}  // namespace

int main() {
  std::thread a(worker, 0);
  std::thread b(worker, 1);
  a.join();
  b.join();
  return 0;
}
