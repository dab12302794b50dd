// The fixed twin of wm_refcount.cpp: each owner drops its reference with a
// release decrement, and the last one issues an acquire fence before it
// flushes, so it synchronizes with every earlier owner's decrement (the
// decrements form a release sequence) and sees their entries.
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
  if (l.references.fetch_sub(1, std::memory_order_release) == 1) {
    std::atomic_thread_fence(std::memory_order_acquire);
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
