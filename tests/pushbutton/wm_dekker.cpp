// expect: assertion others == 0
// heddle: --memory-model rc11
// sc: passes
// Dekker's lock (Dijkstra, EWD 123) with release stores and acquire loads.
// A thread raises its flag and enters unless the other's flag is up; on a tie
// the turn says who backs off. Entering is only safe if a thread's store of
// its own flag is ordered before its load of the other's: store buffering,
// which only seq_cst forbids. With release/acquire both threads may read the
// other's flag as down and enter together.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
std::atomic<bool> wants[2];
std::atomic<int> turn{0};
std::atomic<int> inside{0};

void lock(int me) {
  const int other = 1 - me;
  wants[me].store(true, std::memory_order_release);  // the bug: these need memory_order_seq_cst
  while (wants[other].load(std::memory_order_acquire)) {
    if (turn.load(std::memory_order_acquire) != me) {
      wants[me].store(false, std::memory_order_release);
      while (turn.load(std::memory_order_acquire) != me) std::this_thread::yield();
      wants[me].store(true, std::memory_order_release);
    }
  }
}

void unlock(int me) {
  turn.store(1 - me, std::memory_order_release);
  wants[me].store(false, std::memory_order_release);
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
