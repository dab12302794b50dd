// An object that crashes in some interleavings, for the crash tests
// (crash_example.cpp under the CLI, crash_test.cpp under check()): a
// one-element slot whose take() checks that it is full, then empties it; a
// second take() between the check and the exchange gets a null pointer and
// dereferences it (SIGSEGV). The smallest crashing scenario is three calls:
// a put() before the parallel part, and take() in each of two threads.
#pragma once

#include <optional>

#include "heddle/atomic.hpp"
#include "heddle/lincheck.hpp"

namespace racy {

class slot {
 public:
  void put(int v) {
    storage_ = v;
    item_.store(&storage_);
  }
  int take() {
    if (item_.load() == nullptr) return 0;  // check...
    int* p = item_.exchange(nullptr);       // ...then act: another take() may have emptied it meanwhile
    return *p;
  }

 private:
  int storage_ = 0;
  heddle::atomic<int*> item_{nullptr};
};

struct seq_slot {
  std::optional<int> item;
  void put(int v) { item = v; }
  int take() {
    const int v = item.value_or(0);
    item.reset();
    return v;
  }
  bool operator==(const seq_slot&) const = default;
};

// Two threads of two calls, one call before and one after.
inline heddle::lincheck::spec<slot, seq_slot> slot_spec() {
  return heddle::lincheck::spec<slot, seq_slot>()
      .op("put", &slot::put, &seq_slot::put, heddle::lincheck::range(1, 3))
      .op("take", &slot::take, &seq_slot::take)
      .threads(2)
      .ops_per_thread(2);
}

}  // namespace racy
