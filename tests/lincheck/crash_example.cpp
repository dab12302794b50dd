// A lincheck test whose object crashes in some interleavings, for
// tests/lincheck/cli_test.sh: a one-element slot whose take() checks that it is
// full, then empties it; a second take() between the check and the exchange
// gets a null pointer and dereferences it (SIGSEGV). Linked with heddle::main,
// so `heddle list` and `heddle test` see it; the crash must become a reported
// crash with its scenario, not a silent death.
#include <optional>

#include "heddle/atomic.hpp"
#include "heddle/lincheck.hpp"

namespace {

class racy_slot {
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

}  // namespace

HEDDLE_LINCHECK_TEST(lincheck_crash, take_after_take) {
  return heddle::lincheck::spec<racy_slot, seq_slot>()
      .op("put", &racy_slot::put, &seq_slot::put, heddle::lincheck::range(1, 3))
      .op("take", &racy_slot::take, &seq_slot::take)
      .threads(2)
      .ops_per_thread(2);
}
