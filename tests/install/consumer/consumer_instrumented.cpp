// A program for heddle's push-button mode: no heddle header, built through
// heddle_instrument(), so its atomics call libheddle-rt's ThreadSanitizer hooks.
#include <atomic>
#include <cstdio>
#include <thread>

int main() {
  std::atomic<int> n{0};
  std::thread t([&] { n.fetch_add(1); });
  t.join();
  std::printf("%d\n", n.load());
  return n.load() == 1 ? 0 : 1;
}
