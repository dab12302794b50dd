// Boost.Lockfree's queue (Debian libboost-dev, header-only): two producers and
// two consumers; every item comes out exactly once. The queue's freelist
// reads a node's `next` that another thread may be recycling, and throws the
// value away when its compare-exchange fails: a race by design, suppressed in
// boost_lockfree.supp.
#include <boost/lockfree/queue.hpp>

#include <atomic>
#include <cassert>
#include <thread>
#include <vector>

namespace {

constexpr int producers = 2, consumers = 2, per_producer = 3;
boost::lockfree::queue<int> queue(4);
std::atomic<int> taken{0};
std::atomic<int> seen[producers * per_producer];

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([p] {
      for (int i = 0; i < per_producer; ++i)
        while (!queue.push(p * per_producer + i)) std::this_thread::yield();
    });
  for (int c = 0; c < consumers; ++c)
    threads.emplace_back([] {
      while (taken.load() < producers * per_producer) {
        int item = -1;
        if (queue.pop(item)) {
          seen[item].fetch_add(1);
          taken.fetch_add(1);
        } else {
          std::this_thread::yield();
        }
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::atomic<int>& s : seen) assert(s.load() == 1);
  return 0;
}
