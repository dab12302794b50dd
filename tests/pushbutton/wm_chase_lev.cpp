// expect: assertion taken[i].load() <= 1
// heddle: --memory-model rc11
// sc: passes
// A Chase-Lev work-stealing deque with the memory orders of Lê, Pop, Cohen
// and Zappa Nardelli ("Correct and efficient work-stealing for weak memory
// models", PPoPP 2013), but without the seq_cst fence in the owner's pop
// between its store of `bottom` and its load of `top`. Owner and thief then
// form store buffering on `bottom` and `top`: the owner may read a `top` from
// before the thief's steal and take an element without the CAS while the
// thief, reading a `bottom` from before the owner's pop, steals the same one.
// (Items are relaxed atomics, so this is not a data race; chase_lev.cpp is
// the deque whose plain items race when push publishes them relaxed.)
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
    // the bug: std::atomic_thread_fence(std::memory_order_seq_cst) belongs here
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
