// expect: assertion assertion failed: total == sum
// Three tasks add their part to a total, and main collects the parts through
// futures: one from std::async, one from a std::packaged_task run on a
// std::thread, one from a std::promise set by a detached thread. Every task
// waits for main's go through a std::shared_future. Each task reads the total
// in one critical section and writes it in another, so two tasks can read the
// same total and one update is lost: the sum of the parts main got from the
// futures is then more than the total. Only some interleavings of the tasks
// lose it, and each wait on a future is a wait on a futex (libstdc++).
#include <cassert>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

namespace {

std::mutex lock;
int total = 0;

int add(int part) {
  int seen = 0;
  {
    const std::lock_guard<std::mutex> g(lock);
    seen = total;
  }
  const std::lock_guard<std::mutex> g(lock);
  total = seen + part;
  return part;
}

}  // namespace

int main() {
  std::promise<void> go;
  const std::shared_future<void> start = go.get_future().share();

  std::future<int> first = std::async(std::launch::async, [start] {
    start.wait();
    return add(1);
  });

  std::packaged_task<int()> task([start] {
    start.wait();
    return add(2);
  });
  std::future<int> second = task.get_future();
  std::thread runner(std::move(task));

  std::promise<int> third_part;
  std::future<int> third = third_part.get_future();
  std::thread([start, p = std::move(third_part)]() mutable {
    start.wait();
    p.set_value(add(4));
  }).detach();

  go.set_value();
  const int sum = first.get() + second.get() + third.get();
  runner.join();
  assert(total == sum);
  return 0;
}
