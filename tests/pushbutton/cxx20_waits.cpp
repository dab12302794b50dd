// expect: assertion assertion failed: results[i].load() == i + 1
// C++20's waiting primitives, which libstdc++ builds on the futex system call:
// main releases two workers with atomic<bool>::wait/notify_all; a
// counting_semaphore lets one of them into a section at a time; a barrier
// holds both until each has been through it; then each stores its result and
// counts down a latch main waits on. The latch was made for one worker, not
// two: main can wake after one count-down and read a result the other has not
// stored yet. (Two workers: libstdc++'s barrier places a thread in its tree by
// a hash of its thread id, which would make the steps depend on addresses.)
#include <atomic>
#include <barrier>
#include <cassert>
#include <latch>
#include <semaphore>
#include <thread>
#include <vector>

namespace {

constexpr int workers = 2;
std::atomic<bool> go{false};
std::counting_semaphore<1> permits(1);
std::atomic<int> inside{0};
std::barrier<> round_end(workers);
std::latch finished(workers - 1);  // the bug: one count-down too few
std::atomic<int> results[workers];

void work(int i) {
  go.wait(false);
  permits.acquire();
  assert(inside.fetch_add(1) == 0);
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
