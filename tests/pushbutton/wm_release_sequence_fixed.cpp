// The fixed twin of wm_release_sequence.cpp: the relay moves the stage on
// with a read-modify-write, which continues the publisher's release sequence,
// so a consumer that reads 2 with acquire synchronizes with the publisher.
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
    int one = 1;
    stage.compare_exchange_strong(one, 2, std::memory_order_relaxed);
  });
  std::thread consumer([] {
    if (stage.load(std::memory_order_acquire) == 2) assert(payload == 42);
  });
  publisher.join();
  relay.join();
  consumer.join();
  return 0;
}
