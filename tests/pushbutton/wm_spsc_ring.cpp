// expect: assertion value == expected
// heddle: --memory-model rc11
// sc: passes
// A single-producer single-consumer ring buffer whose producer publishes a
// slot with a relaxed store of its tail index. The consumer that sees the new
// index has no happens-before with the slot's write and may read the slot's
// old value. (The slots are relaxed atomics, so the bug is the reordering, not
// a data race; with plain slots it is also a race, which the race detector
// reports.)
#include <atomic>
#include <cassert>
#include <thread>

namespace {
constexpr unsigned capacity = 4;
constexpr int count = 3;

struct ring {
  std::atomic<int> slots[capacity];
  std::atomic<unsigned> head{0};  // the consumer's next slot
  std::atomic<unsigned> tail{0};  // the producer's next slot

  bool push(int v) {
    const unsigned t = tail.load(std::memory_order_relaxed);
    if (t - head.load(std::memory_order_acquire) == capacity) return false;
    slots[t % capacity].store(v, std::memory_order_relaxed);
    tail.store(t + 1, std::memory_order_relaxed);  // the bug: must be memory_order_release
    return true;
  }

  bool pop(int& v) {
    const unsigned h = head.load(std::memory_order_relaxed);
    if (tail.load(std::memory_order_acquire) == h) return false;
    v = slots[h % capacity].load(std::memory_order_relaxed);
    head.store(h + 1, std::memory_order_release);
    return true;
  }
};

ring queue;
}  // namespace

int main() {
  std::thread producer([] {
    for (int i = 1; i <= count; ++i)
      while (!queue.push(i)) std::this_thread::yield();
  });
  std::thread consumer([] {
    for (int expected = 1; expected <= count; ++expected) {
      int value = 0;
      while (!queue.pop(value)) std::this_thread::yield();
      assert(value == expected);
    }
  });
  producer.join();
  consumer.join();
  return 0;
}
