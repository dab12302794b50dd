// Boost.Asio's thread_pool (Debian libboost-dev, header-only) running
// std::packaged_task jobs posted with boost::asio::post; main waits on their
// std::futures. Every result must arrive, each exactly once. The futures wait
// in libstdc++ on the futex system call, the pool's workers on Asio's own
// mutex and condition variable (pthreads).
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <cassert>
#include <cstdio>
#include <future>
#include <vector>

int main() {
  constexpr int jobs = 4;
  boost::asio::thread_pool pool(2);
  std::vector<std::future<int>> results;
  for (int i = 1; i <= jobs; ++i) {
    std::packaged_task<int()> job([i] { return i * i; });
    results.push_back(job.get_future());
    boost::asio::post(pool, std::move(job));
  }
  int sum = 0;
  for (std::future<int>& f : results) sum += f.get();
  pool.join();
  assert(sum == 1 + 4 + 9 + 16);
  std::printf("sum %d\n", sum);
  return 0;
}
