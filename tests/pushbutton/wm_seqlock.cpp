// expect: assertion first == second
// heddle: --memory-model rc11
// sc: passes
// A seqlock with a missing fence. The writer makes the sequence number odd,
// writes the two halves of the value, then makes it even again; a reader
// reads the sequence number, the halves, and the sequence number again, and
// keeps what it read only if both numbers are the same and even. Readers and
// the writer may overlap, so the halves are relaxed atomics. The reader's
// acquire fence orders its second read of the sequence number after the
// halves; the writer needs the matching release fence after making the number
// odd (Boehm, "Can seqlocks get along with programming language memory
// models?", MSPC 2012). Without it a reader can see a new half and still an
// old, even sequence number: a torn value it takes as consistent.
#include <atomic>
#include <cassert>
#include <thread>

namespace {
std::atomic<unsigned> sequence{0};
std::atomic<int> low{0};
std::atomic<int> high{0};

void write(int v) {
  const unsigned s = sequence.load(std::memory_order_relaxed);
  sequence.store(s + 1, std::memory_order_relaxed);
  // the bug: std::atomic_thread_fence(std::memory_order_release) belongs here
  low.store(v, std::memory_order_relaxed);
  high.store(v, std::memory_order_relaxed);
  sequence.store(s + 2, std::memory_order_release);
}

bool read(int& first, int& second) {
  const unsigned before = sequence.load(std::memory_order_acquire);
  first = low.load(std::memory_order_relaxed);
  second = high.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  const unsigned after = sequence.load(std::memory_order_relaxed);
  return before == after && before % 2 == 0;
}
}  // namespace

int main() {
  std::thread writer([] { write(1); });
  std::thread reader([] {
    int first = 0;
    int second = 0;
    if (read(first, second)) assert(first == second);
  });
  writer.join();
  reader.join();
  return 0;
}
