// expect: assertion others == 0
// heddle: --memory-model rc11
// sc: passes
// Peterson's lock with release stores and acquire loads. Each thread raises
// its flag, gives the turn away, and waits while the other's flag is up and
// the turn is the other's. That needs the store of a thread's own flag to be
// ordered before its load of the other's flag: store buffering, which only
// seq_cst forbids. With release/acquire both threads may read the other's
// flag as still down and enter the critical section together.
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
  turn.store(other, std::memory_order_release);
  while (wants[other].load(std::memory_order_acquire) && turn.load(std::memory_order_acquire) == other) {
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
