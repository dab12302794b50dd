// The fixed twin of chase_lev.cpp: push publishes the item with a release
// store of `bottom`, which the thief's acquire load synchronizes with.
#include <atomic>
#include <cassert>
#include <cstdio>
#include <thread>

namespace {

constexpr long capacity = 16;
constexpr int count = 4;

struct work_stealing_deque {
  std::atomic<long> top{0};
  std::atomic<long> bottom{0};
  int items[capacity] = {};

  void push(int x) {
    const long b = bottom.load(std::memory_order_relaxed);
    items[b % capacity] = x;
    bottom.store(b + 1, std::memory_order_release);
  }

  bool pop(int& x) {
    const long b = bottom.load(std::memory_order_relaxed) - 1;
    bottom.store(b, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    long t = top.load(std::memory_order_relaxed);
    if (t > b) {
      bottom.store(b + 1, std::memory_order_relaxed);
      return false;
    }
    x = items[b % capacity];
    if (t < b) return true;
    // The last item: the thief may be taking it too; the CAS on top decides.
    const bool won = top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
    bottom.store(b + 1, std::memory_order_relaxed);
    return won;
  }

  bool steal(int& x) {
    long t = top.load(std::memory_order_acquire);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const long b = bottom.load(std::memory_order_acquire);
    if (t >= b) return false;
    x = items[t % capacity];
    return top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
  }
};

work_stealing_deque deque;
std::atomic<int> taken[count];
}  // namespace

int main() {
  deque.top = 0;  // fresh state, also when main runs more than once in a process
  deque.bottom = 0;
  for (auto& t : taken) t = 0;
  std::thread thief([] {
    for (int i = 0; i < count; ++i) {
      int x = 0;
      if (deque.steal(x)) taken[x].fetch_add(1);
    }
  });
  for (int i = 0; i < count; ++i) deque.push(i);
  int x = 0;
  while (deque.pop(x)) taken[x].fetch_add(1);
  thief.join();
  for (int i = 0; i < count; ++i) {
    std::printf("item %d taken %d time(s)\n", i, taken[i].load());
    assert(taken[i].load() == 1);
  }
  return 0;
}
