// Boost.Lockfree's spsc_queue (libboost-dev, header-only): one producer, one
// consumer (main), a ring of 2 slots; each side yields while the ring is full
// or empty. Every item arrives once, in order.
#include <boost/lockfree/spsc_queue.hpp>

#include <cassert>
#include <cstdio>
#include <thread>

int main() {
  boost::lockfree::spsc_queue<int, boost::lockfree::capacity<2>> queue;
  constexpr int items = 4;
  std::thread producer([&] {
    for (int i = 1; i <= items; ++i)
      while (!queue.push(i)) std::this_thread::yield();
  });
  int expected = 1, item = 0;
  while (expected <= items) {
    if (queue.pop(item)) {
      assert(item == expected);
      ++expected;
    } else {
      std::this_thread::yield();
    }
  }
  producer.join();
  std::printf("got %d items\n", expected - 1);
  return 0;
}
