// The fixed twin of wm_rmw_older_read.cpp: `started` is a release store and
// an acquire load, so a worker that sees it synchronizes with the starter,
// and its fetch_add may not read behind the store of 1 it now happens after
// (coherence).
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
    started.store(true, std::memory_order_release);
  });
  std::thread worker([] {
    if (started.load(std::memory_order_acquire)) {
      const int previous = generation.fetch_add(1, std::memory_order_relaxed);
      assert(previous >= 1);
    }
  });
  starter.join();
  worker.join();
  return 0;
}
