// expect: assertion data.load(std::memory_order_relaxed) == 42
// heddle: --memory-model rc11
// sc: passes
// Message passing with a relaxed flag: the producer stores the data, then
// raises the flag; the consumer that sees the flag reads the data. Both
// stores are relaxed, so nothing orders the data before the flag: under the
// C++ memory model (and on ARM or POWER) the consumer may see the flag and
// still read the data's old value. Sequentially consistent interleavings
// never show it; --memory-model rc11 does.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
std::atomic<int> data{0};
std::atomic<bool> ready{false};
}  // namespace

int main() {
  data = 0;  // fresh, also when main runs more than once in a process (tests/tsan)
  ready = false;
  std::thread producer([] {
    data.store(42, std::memory_order_relaxed);
    ready.store(true, std::memory_order_relaxed);  // the bug: must be memory_order_release
  });
  std::thread consumer([] {
    if (ready.load(std::memory_order_relaxed))  // and this memory_order_acquire
      assert(data.load(std::memory_order_relaxed) == 42);
  });
  producer.join();
  consumer.join();
  return 0;
}
