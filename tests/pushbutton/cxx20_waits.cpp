// expect: assertion assertion failed: results[i].load() == i + 1
// C++20's waiting primitives, which libstdc++ builds on the futex system call:
// main releases three workers with atomic<bool>::wait/notify_all; a
// counting_semaphore lets at most two of them into a section at once; a
// barrier holds them all until each has been through it; then each stores its
// result and counts down a latch main waits on. The latch was made for two
// workers, not three: main can wake after two count-downs and read a result
// the third has not stored yet. (libstdc++'s barrier places a thread in its
// tree by a hash of its thread id: the trace replays, on either backend, only
// because a pthread_t is the same number in every run.)
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
std::latch finished(workers - 1);  // the bug: one count-down too few
std::atomic<int> results[workers];

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
  return 0;
}
