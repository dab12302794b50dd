// rvaser's thread_pool (Debian libthread-pool-dev, header-only): a pool of 2
// threads, each with its own queue, that steals work from the other's queue
// with try_lock; jobs are std::packaged_tasks and main waits on their
// std::futures. Every result arrives once.
#include <thread_pool/thread_pool.hpp>

#include <cassert>
#include <cstdio>
#include <future>
#include <vector>

int main() {
  constexpr int jobs = 5;
  int sum = 0;
  {
    thread_pool::ThreadPool pool(2);
    std::vector<std::future<int>> results;
    for (int i = 1; i <= jobs; ++i) results.push_back(pool.Submit([](int x) { return x * x; }, i));
    for (std::future<int>& f : results) sum += f.get();
  }
  assert(sum == 1 + 4 + 9 + 16 + 25);
  std::printf("sum %d\n", sum);
  return 0;
}
