// oneTBB (libtbb-dev): a concurrent_queue filled by two std::threads, then
// drained; a concurrent_hash_map counted into from two threads; and a
// parallel_reduce in an arena of two threads, which TBB's scheduler (in
// libtbb.so, not instrumented) splits between main and a worker. Every result
// is checked. Before heddle told the program the CPUs it would have, TBB saw
// the one CPU the fork server is pinned to and started no worker; with the
// worker, the race detector reported the partitioner state TBB's scheduler
// hands between threads (it is off for libtbb now: known_libraries.cpp).
#include <tbb/concurrent_hash_map.h>
#include <tbb/concurrent_queue.h>
#include <tbb/parallel_reduce.h>
#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include <cassert>
#include <cstdio>
#include <thread>

int main() {
  tbb::concurrent_queue<int> queue;
  {
    std::thread a([&] { for (int i = 0; i < 3; ++i) queue.push(i); });
    std::thread b([&] { for (int i = 10; i < 13; ++i) queue.push(i); });
    a.join();
    b.join();
  }
  int sum = 0, item = 0, n = 0;
  while (queue.try_pop(item)) { sum += item; ++n; }
  assert(n == 6 && sum == 0 + 1 + 2 + 10 + 11 + 12);

  tbb::concurrent_hash_map<int, int> counts;
  {
    auto count = [&] {
      for (int k = 0; k < 3; ++k) {
        tbb::concurrent_hash_map<int, int>::accessor acc;
        counts.insert(acc, k);
        ++acc->second;
      }
    };
    std::thread a(count), b(count);
    a.join();
    b.join();
  }
  for (int k = 0; k < 3; ++k) {
    tbb::concurrent_hash_map<int, int>::const_accessor acc;
    assert(counts.find(acc, k) && acc->second == 2);
  }

  tbb::task_arena arena(2);
  long total = arena.execute([] {
    return tbb::parallel_reduce(
        tbb::blocked_range<int>(1, 101, 25), 0L,
        [](const tbb::blocked_range<int>& r, long s) { for (int i = r.begin(); i != r.end(); ++i) s += i; return s; },
        [](long x, long y) { return x + y; });
  });
  assert(total == 5050);
  std::printf("queue %d map ok reduce %ld\n", sum, total);
  return 0;
}
