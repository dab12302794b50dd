// expect: assertion previous >= 1
// heddle: --memory-model rc11
// sc: passes
// A read-modify-write that reads an older store than one its thread saw the
// effect of. The starter sets the generation to 1, then raises `started`,
// both relaxed; a worker that sees `started` bumps the generation with a
// relaxed fetch_add and expects to bump it from 1 on. Nothing orders the
// generation's store before the worker's fetch_add: under the C++ memory
// model the fetch_add may read the initial 0 and go before the store of 1 in
// modification order (RC11 only asks that no other read-modify-write read
// 0). Sequentially consistent interleavings never show it; --memory-model
// rc11 does.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
std::atomic<int> generation{0};
std::atomic<bool> started{false};
}  // namespace

int main() {
  generation = 0;  // fresh, also when main runs more than once in a process
  started = false;
  std::thread starter([] {
    generation.store(1, std::memory_order_relaxed);
    started.store(true, std::memory_order_relaxed);  // the bug: release
  });
  std::thread worker([] {
    if (started.load(std::memory_order_relaxed)) {  // the bug: acquire
      const int previous = generation.fetch_add(1, std::memory_order_relaxed);
      assert(previous >= 1);
    }
  });
  starter.join();
  worker.join();
  return 0;
}
