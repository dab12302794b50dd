// The fixed twin of wm_message_passing.cpp: the flag is a release store and
// an acquire load, so a consumer that reads it synchronizes with the producer
// and reads the data it stored before.
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
    ready.store(true, std::memory_order_release);
  });
  std::thread consumer([] {
    if (ready.load(std::memory_order_acquire)) assert(data.load(std::memory_order_relaxed) == 42);
  });
  producer.join();
  consumer.join();
  return 0;
}
