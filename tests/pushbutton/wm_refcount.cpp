// expect: assertion flushed == 2
// heddle: --memory-model rc11
// sc: passes
// A reference count whose decrement is relaxed. Two owners share a log; each
// writes its entry and drops its reference, and the last one to drop it
// flushes the log (where a real one would destroy the object). The last
// owner's decrement reads the other's, but a relaxed read-modify-write does
// not synchronize: the flush may miss the other owner's entry. The usual
// fix, as std::shared_ptr and Boost do: decrement with release, and the last
// owner issues an acquire fence before it touches the object.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
struct shared_log {
  std::atomic<int> references{2};
  std::atomic<int> entries[2];
};

shared_log log;

void drop(shared_log& l) {
  if (l.references.fetch_sub(1, std::memory_order_relaxed) == 1) {  // the bug: must be memory_order_release
    // and here std::atomic_thread_fence(std::memory_order_acquire)
    const int flushed = l.entries[0].load(std::memory_order_relaxed) + l.entries[1].load(std::memory_order_relaxed);
    assert(flushed == 2);
  }
}

void owner(int me) {
  log.entries[me].store(1, std::memory_order_relaxed);
  drop(log);
}
}  // namespace

int main() {
  std::thread a(owner, 0);
  std::thread b(owner, 1);
  a.join();
  b.join();
  return 0;
}
