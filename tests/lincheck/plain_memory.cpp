// The instrumented half of plain_memory.hpp: each plain access here calls
// libheddle-rt's __tsan_read4/__tsan_write4.
#include "plain_memory.hpp"

namespace plain_memory {

int add_to(int* slot, int v) {
  *slot += v;
  return *slot;
}

counter::counter() : value_(0) {}

void counter::add() { value_ = value_ + 1; }

int counter::get() const { return value_; }

}  // namespace plain_memory
