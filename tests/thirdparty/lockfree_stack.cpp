// Boost.Lockfree's stack (Debian libboost-dev, header-only): two threads push
// and pop concurrently with main; every item comes out exactly once. Its
// freelist has the benign race that boost_lockfree.supp suppresses.
#include <boost/lockfree/stack.hpp>

#include <atomic>
#include <cassert>
#include <thread>
#include <vector>

namespace {

constexpr int pushers = 2, per_pusher = 3;
boost::lockfree::stack<int> stack(4);
std::atomic<int> seen[pushers * per_pusher];

void take_one() {
  int item = -1;
  while (!stack.pop(item)) std::this_thread::yield();
  seen[item].fetch_add(1);
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int p = 0; p < pushers; ++p)
    threads.emplace_back([p] {
      for (int i = 0; i < per_pusher; ++i) {
        while (!stack.push(p * per_pusher + i)) std::this_thread::yield();
        // Pops race with the other thread's pushes. Not after this thread's
        // second push, as it was: main could then pop all four items pushed
        // so far, and both threads wait in take_one() for an item only they
        // would push, a livelock (dfs showed it in its first schedule; the
        // other strategies cut it at --max-steps in 1-20% of iterations).
        if (i == per_pusher - 1) take_one();
      }
    });
  for (int i = 0; i < pushers * per_pusher - pushers; ++i) take_one();
  for (std::thread& t : threads) t.join();
  int item = -1;
  assert(!stack.pop(item));
  for (const std::atomic<int>& s : seen) assert(s.load() == 1);
  return 0;
}
