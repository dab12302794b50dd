// moodycamel's ReaderWriterQueue (Debian libreaderwriterqueue-dev,
// header-only), a lock-free single-producer single-consumer queue: the
// blocking queue (its semaphore spins, then waits in sem_wait) starting with
// room for 2 so that the producer adds blocks as it goes, and the fixed-size
// circular buffer, whose producer waits while it is full. The consumer gets
// every item once, in order.
#include <readerwriterqueue/readerwritercircularbuffer.h>
#include <readerwriterqueue/readerwriterqueue.h>

#include <cassert>
#include <cstdio>
#include <thread>

namespace {

constexpr int items = 8;

}  // namespace

int main() {
  moodycamel::BlockingReaderWriterQueue<int> queue(2);
  moodycamel::BlockingReaderWriterCircularBuffer<int> ring(2);
  std::thread producer([&] {
    for (int i = 0; i < items; ++i) {
      const bool queued = queue.enqueue(i);
      assert(queued);
      ring.wait_enqueue(i);
    }
  });
  for (int i = 0; i < items; ++i) {
    int a = -1, b = -1;
    queue.wait_dequeue(a);
    assert(a == i);
    ring.wait_dequeue(b);
    assert(b == i);
  }
  producer.join();
  int extra = 0;
  assert(!queue.try_dequeue(extra) && !ring.try_dequeue(extra));
  std::printf("%d items\n", items);
  return 0;
}
