// expect: data_race data race on 4 bytes
// heddle: --memory-model rc11
// sc: passes
// A release sequence broken by another thread's plain store. The publisher
// writes `payload` and stores 1 to `stage` with release; a relay that sees 1
// moves the stage on to 2 with a relaxed store; a consumer that sees 2 with
// an acquire load reads `payload`. The relay's store is not a read-modify-
// write, so it does not continue the publisher's release sequence: reading 2
// synchronizes with nothing, and the consumer's read of `payload` races with
// the publisher's write. Under --memory-model sc the race detector orders an
// acquire after every release on the atomic and misses this; under rc11 it
// orders a load only after the store it read, as C++ does.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
int payload = 0;
std::atomic<int> stage{0};
}  // namespace

int main() {
  payload = 0;  // fresh, also when main runs more than once in a process (tests/tsan)
  stage = 0;
  std::thread publisher([] {
    payload = 42;
    stage.store(1, std::memory_order_release);
  });
  std::thread relay([] {
    if (stage.load(std::memory_order_relaxed) == 1)
      stage.store(2, std::memory_order_relaxed);  // the bug: stage.exchange(2) would continue the release sequence
  });
  std::thread consumer([] {
    if (stage.load(std::memory_order_acquire) == 2) assert(payload == 42);
  });
  publisher.join();
  relay.join();
  consumer.join();
  return 0;
}
