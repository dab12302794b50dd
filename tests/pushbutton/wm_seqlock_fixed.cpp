// The fixed twin of wm_seqlock.cpp: the writer's release fence after making
// the sequence number odd pairs with the reader's acquire fence, so a reader
// that saw a new half also sees the odd (or a newer) sequence number, and
// retries.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
std::atomic<unsigned> sequence{0};
std::atomic<int> low{0};
std::atomic<int> high{0};

void write(int v) {
  const unsigned s = sequence.load(std::memory_order_relaxed);
  sequence.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  low.store(v, std::memory_order_relaxed);
  high.store(v, std::memory_order_relaxed);
  sequence.store(s + 2, std::memory_order_release);
}

bool read(int& first, int& second) {
  const unsigned before = sequence.load(std::memory_order_acquire);
  first = low.load(std::memory_order_relaxed);
  second = high.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  const unsigned after = sequence.load(std::memory_order_relaxed);
  return before == after && before % 2 == 0;
}
}  // namespace

int main() {
  std::thread writer([] { write(1); });
  std::thread reader([] {
    int first = 0;
    int second = 0;
    if (read(first, second)) assert(first == second);
  });
  writer.join();
  reader.join();
  return 0;
}
