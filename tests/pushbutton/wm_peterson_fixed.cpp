// The fixed twin of wm_peterson.cpp: the flags and the turn are seq_cst, so a
// thread's store of its flag and its load of the other's are totally ordered
// with the other thread's, and at most one of them reads the other's flag as
// down.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
std::atomic<bool> wants[2];
std::atomic<int> turn{0};
std::atomic<int> inside{0};

void lock(int me) {
  const int other = 1 - me;
  wants[me].store(true, std::memory_order_seq_cst);
  turn.store(other, std::memory_order_seq_cst);
  while (wants[other].load(std::memory_order_seq_cst) && turn.load(std::memory_order_seq_cst) == other) {
  }
}

void unlock(int me) { wants[me].store(false, std::memory_order_release); }

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
