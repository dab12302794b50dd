// The fixed twin of future_lost_update.cpp: each task reads and writes the
// total in one critical section, so no update is lost in any interleaving;
// main collects the parts through std::async's, a std::packaged_task's and a
// std::promise's futures and checks every kind of wait on them (get, wait,
// wait_for with a timeout on virtual time, a shared_future many threads wait on).
#include <cassert>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

namespace {

std::mutex lock;
int total = 0;

int add(int part) {
  const std::lock_guard<std::mutex> g(lock);
  total += part;
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

  // Nothing can be ready before the go: a timed wait times out (on virtual time).
  assert(third.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  go.set_value();
  second.wait();
  const int sum = first.get() + second.get() + third.get();
  runner.join();
  assert(sum == 7);
  assert(total == sum);
  return 0;
}
