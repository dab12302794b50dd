// expect: assertion assertion failed: flushed.load() == workers * per_worker
// Each worker counts in a thread_local tally whose destructor, run when the
// worker exits, adds the count to a shared total. The destructor reads the
// total and writes it back in two atomic steps, not one: two workers exiting
// at the same time can lose one count. (The destructors must run at thread
// exit for this to be seen at all: main checks the total after joining.)
// Each worker uses thread_local variables of its own (worker<N>), so that the
// program meant the same on --backend fibers when its threads shared them.
#include <atomic>
#include <cassert>
#include <thread>

namespace {

constexpr int workers = 2;
constexpr int per_worker = 3;
std::atomic<int> flushed{0};

struct tally {
  int count = 0;
  ~tally() {
    const int seen = flushed.load();
    flushed.store(seen + count);  // the bug: not one read-modify-write
  }
};
template <int n>
void work() {
  thread_local tally mine;
  for (int i = 0; i < per_worker; ++i) ++mine.count;
}

}  // namespace

int main() {
  std::thread a(work<0>), b(work<1>);
  a.join();
  b.join();
  assert(flushed.load() == workers * per_worker);
  return 0;
}
