// The fixed twin of cxx20_waits.cpp: the latch counts every worker, so main
// reads the results only once all three stored theirs. Also waits with a
// timeout on virtual time (semaphore try_acquire_for, which times out while
// no permit is free) and atomic<int>::wait/notify_one.
#include <atomic>
#include <barrier>
#include <cassert>
#include <chrono>
#include <latch>
#include <semaphore>
#include <thread>
#include <vector>

namespace {

constexpr int workers = 3;
std::atomic<bool> go{false};
std::counting_semaphore<2> permits(2);
std::atomic<int> inside{0};
std::barrier<> round_end(workers);
std::latch finished(workers);
std::atomic<int> results[workers];
std::binary_semaphore never(0);
std::atomic<int> acknowledged{0};

void work(int i) {
  go.wait(false);
  // Not permits.acquire(): libstdc++ 12.2's can sleep for ever (GCC PR
  // 104928: its futex wait compares the count with a value read before its
  // spin, so a count that went 1, 0, 1 meanwhile sleeps though a permit is
  // free, and the release that freed it woke nobody). heddle found that here
  // (a deadlock of the fixed twin at iteration 670 of 1,000). A timed acquire
  // in a loop gets past it: its wait times out, on virtual time, and tries again.
  while (!permits.try_acquire_for(std::chrono::seconds(1))) {
  }
  assert(inside.fetch_add(1) + 1 <= 2);
  inside.fetch_sub(1);
  permits.release();
  round_end.arrive_and_wait();
  results[i].store(i + 1, std::memory_order_relaxed);
  finished.count_down();
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(work, i);
  go.store(true);
  go.notify_all();
  finished.wait();
  for (int i = 0; i < workers; ++i) assert(results[i].load() == i + 1);
  for (std::thread& t : threads) t.join();

  assert(!never.try_acquire_for(std::chrono::milliseconds(100)));
  std::thread acker([] {
    acknowledged.store(1);
    acknowledged.notify_one();
  });
  acknowledged.wait(0);
  assert(acknowledged.load() == 1);
  acker.join();
  return 0;
}
