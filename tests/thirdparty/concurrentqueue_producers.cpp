// moodycamel::ConcurrentQueue (Debian libconcurrentqueue-dev, header-only)
// from many producers at once, with a consumer draining while they run. Every
// item arrives exactly once, and the items of one producer arrive in the order
// it enqueued them (the queue's guarantee for implicit producers).
#include <concurrentqueue/concurrentqueue.h>

#include <atomic>
#include <cassert>
#include <thread>
#include <vector>

namespace {

constexpr int producers = 4, per_producer = 3;
moodycamel::ConcurrentQueue<int> queue;

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([p] {
      for (int i = 0; i < per_producer; ++i) {
        const bool queued = queue.enqueue(p * per_producer + i);
        assert(queued);
      }
    });
  int next[producers] = {};
  int received = 0;
  const auto take = [&](int item) {
    const int p = item / per_producer;
    assert(item % per_producer == next[p]);
    ++next[p];
    ++received;
  };
  std::thread consumer([&] {
    int item = -1;
    for (int tries = 0; tries < 4; ++tries)
      if (queue.try_dequeue(item)) take(item);
  });
  for (std::thread& t : threads) t.join();
  consumer.join();
  for (int item = -1; queue.try_dequeue(item);) take(item);
  assert(received == producers * per_producer);
  for (int p = 0; p < producers; ++p) assert(next[p] == per_producer);
  return 0;
}
