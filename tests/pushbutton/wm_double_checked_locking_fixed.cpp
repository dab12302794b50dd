// The fixed twin of wm_double_checked_locking.cpp: the flag is stored with
// release and loaded with acquire, so a caller that sees it set without the
// mutex synchronizes with the filling of the table.
#include <atomic>
#include <cassert>
#include <mutex>
#include <thread>

namespace {
std::atomic<bool> initialized{false};
std::atomic<int> squares[4];
std::mutex init_mutex;

int square(int i) {
  if (!initialized.load(std::memory_order_acquire)) {
    const std::lock_guard<std::mutex> lock(init_mutex);
    if (!initialized.load(std::memory_order_relaxed)) {
      for (int k = 0; k < 4; ++k) squares[k].store(k * k, std::memory_order_relaxed);
      initialized.store(true, std::memory_order_release);
    }
  }
  return squares[i].load(std::memory_order_relaxed);
}

void check() { assert(square(3) == 9); }
}  // namespace

int main() {
  std::thread a(check);
  std::thread b(check);
  a.join();
  b.join();
  return 0;
}
