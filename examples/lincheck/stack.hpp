// A stack with a size() counter, in two versions for lincheck (docs/lincheck.md).
//
// racy_stack updates its counter after the push has released the lock: a
// pop() or size() in between sees the pushed element but not the count, so a
// size() can return -1, a value no sequential order of the calls gives.
// fixed_stack updates the counter inside the critical section. seq_stack is
// the sequential model both are checked against.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

#include <heddle/atomic.hpp>
#include <heddle/lincheck.hpp>
#include <heddle/mutex.hpp>

namespace examples {

template <bool CountUnderLock>
class counted_stack {
 public:
  void push(int value) {
    {
      std::lock_guard<heddle::mutex> guard(mutex_);
      items_.push_back(value);
      if constexpr (CountUnderLock) count_.fetch_add(1);
    }
    if constexpr (!CountUnderLock) count_.fetch_add(1);  // the bug: after the element is visible
  }

  std::optional<int> pop() {
    std::lock_guard<heddle::mutex> guard(mutex_);
    if (items_.empty()) return std::nullopt;
    const int value = items_.back();
    items_.pop_back();
    count_.fetch_sub(1);
    return value;
  }

  int size() const { return count_.load(); }

 private:
  heddle::mutex mutex_;
  std::vector<int> items_;
  heddle::atomic<int> count_{0};
};

using racy_stack = counted_stack<false>;
using fixed_stack = counted_stack<true>;

// The sequential model: a plain vector.
struct seq_stack {
  std::vector<int> items;
  void push(int value) { items.push_back(value); }
  std::optional<int> pop() {
    if (items.empty()) return std::nullopt;
    const int value = items.back();
    items.pop_back();
    return value;
  }
  int size() const { return static_cast<int>(items.size()); }
  bool operator==(const seq_stack&) const = default;
};

// The declaration both versions are checked with.
template <class Stack>
heddle::lincheck::spec<Stack, seq_stack> stack_spec() {
  return heddle::lincheck::spec<Stack, seq_stack>()
      .op("push", &Stack::push, &seq_stack::push, heddle::lincheck::range(1, 3))
      .op("pop", &Stack::pop, &seq_stack::pop)
      .op("size", &Stack::size, &seq_stack::size)
      .threads(2)
      .ops_per_thread(3);
}

}  // namespace examples
