// expect: assertion square(3) == 9
// heddle: --memory-model rc11
// sc: passes
// Double-checked locking with a relaxed flag: the first caller fills a table
// under a mutex and sets `initialized`; later callers skip the mutex when they
// see the flag. The flag is stored and loaded relaxed, so a caller that sees
// it set without taking the mutex has no happens-before with the filling: it
// may read the table's old contents. (The table's entries are atomics, so
// this is not a data race; it is a reordering only the memory model allows.)
#include <atomic>
#include <cassert>
#include <mutex>
#include <thread>

namespace {
std::atomic<bool> initialized{false};
std::atomic<int> squares[4];
std::mutex init_mutex;

int square(int i) {
  if (!initialized.load(std::memory_order_relaxed)) {  // the bug: must be memory_order_acquire
    const std::lock_guard<std::mutex> lock(init_mutex);
    if (!initialized.load(std::memory_order_relaxed)) {
      for (int k = 0; k < 4; ++k) squares[k].store(k * k, std::memory_order_relaxed);
      initialized.store(true, std::memory_order_relaxed);  // and this memory_order_release
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
