// The fixed twin of wm_chase_lev.cpp: the owner's pop has its seq_cst fence
// between the store of `bottom` and the load of `top`, as Lê et al. give it,
// so owner and thief cannot both miss each other's index: every element comes
// out once.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
constexpr long capacity = 4;
constexpr long empty = -1;
constexpr long abort_steal = -2;

struct work_stealing_deque {
  std::atomic<long> top{0};
  std::atomic<long> bottom{0};
  std::atomic<int> items[capacity];

  void push(int x) {
    const long b = bottom.load(std::memory_order_relaxed);
    items[b % capacity].store(x, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    bottom.store(b + 1, std::memory_order_relaxed);
  }

  long pop() {
    const long b = bottom.load(std::memory_order_relaxed) - 1;
    bottom.store(b, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    long t = top.load(std::memory_order_relaxed);
    long x = empty;
    if (t <= b) {
      x = items[b % capacity].load(std::memory_order_relaxed);
      if (t == b) {  // the last element: race the thief for it
        if (!top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) x = empty;
        bottom.store(b + 1, std::memory_order_relaxed);
      }
    } else {
      bottom.store(b + 1, std::memory_order_relaxed);
    }
    return x;
  }

  long steal() {
    long t = top.load(std::memory_order_acquire);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const long b = bottom.load(std::memory_order_acquire);
    if (t >= b) return empty;
    const long x = items[t % capacity].load(std::memory_order_relaxed);
    if (!top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
      return abort_steal;
    return x;
  }
};

work_stealing_deque deque;
std::atomic<int> taken[3];

void count(long x) {
  if (x > 0) taken[x].fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

int main() {
  deque.push(1);
  deque.push(2);
  std::thread thief([] {
    count(deque.steal());
    count(deque.steal());
  });
  count(deque.pop());
  thief.join();
  for (long x = deque.pop(); x != empty; x = deque.pop()) count(x);
  for (int i = 1; i <= 2; ++i) assert(taken[i].load() <= 1);
  for (int i = 1; i <= 2; ++i) assert(taken[i].load() == 1);
  return 0;
}
