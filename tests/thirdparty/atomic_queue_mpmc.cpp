// atomic_queue (Debian libatomic-queue-dev, header-only): a lock-free
// multi-producer multi-consumer ring buffer of 4 slots whose push and pop
// spin while it is full or empty, from 2 producers to 2 consumers. Every item
// arrives exactly once. (Not in each producer's order, even to one consumer:
// a producer that took a ticket and stalls leaves its slot empty, a producer
// one lap ahead fills it, and the consumer of the earlier ticket takes that
// later item. heddle showed it at once when this test asserted the order.)
#include <atomic_queue/atomic_queue.h>

#include <cassert>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

constexpr unsigned producers = 2, consumers = 2, per_producer = 4;
// 0 is the queue's "empty" value: items are 1-based.
atomic_queue::AtomicQueue<unsigned, 4> queue;

}  // namespace

int main() {
  std::vector<std::thread> threads;
  std::vector<std::vector<unsigned>> received(consumers);
  for (unsigned p = 0; p < producers; ++p)
    threads.emplace_back([p] {
      for (unsigned i = 0; i < per_producer; ++i) queue.push(1 + p * per_producer + i);
    });
  for (unsigned c = 0; c < consumers; ++c)
    threads.emplace_back([c, &received] {
      for (unsigned i = 0; i < producers * per_producer / consumers; ++i) received[c].push_back(queue.pop());
    });
  for (std::thread& t : threads) t.join();
  std::vector<int> seen(producers * per_producer + 1, 0);
  for (const std::vector<unsigned>& r : received)
    for (unsigned item : r) {
      assert(item >= 1 && item <= producers * per_producer);
      ++seen[item];
    }
  for (unsigned item = 1; item <= producers * per_producer; ++item) assert(seen[item] == 1);
  std::printf("%u items\n", producers * per_producer);
  return 0;
}
