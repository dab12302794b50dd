// A lock-free (Treiber) stack whose nodes come from a pool and are reused, in
// two versions for lincheck (docs/lincheck.md): the classic ABA bug, and the
// tagged head that fixes it.
//
// aba_stack's pop() reads the head A and A's successor B, then swings the head
// from A to B with a compare-exchange. If, in between, other calls pop A and
// B and push a value that reuses A's node, the head is A again and the
// exchange succeeds: the head becomes B, a node that was freed, and the value
// B held comes out a second time. tagged_stack keeps a counter beside the
// head's index, bumped by every successful exchange, so the stale exchange
// fails and retries. seq_int_stack is the sequential model both are checked
// against.
//
// The pool is plain memory: heddle runs one operation at a time, so it
// behaves as an allocator that never preempts its caller. It reuses nodes in
// the order they were freed (as allocators with a FIFO free list do) before
// it hands out a node for the first time.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include <heddle/atomic.hpp>
#include <heddle/lincheck.hpp>

namespace examples {

template <bool Tagged>
class treiber_stack {
 public:
  void push(int value) {
    const std::uint32_t n = allocate();
    nodes_[n - 1].value = value;
    std::uint64_t old = top_.load();
    do {
      nodes_[n - 1].next.store(index(old));
    } while (!top_.compare_exchange_weak(old, head(n, old)));
  }

  std::optional<int> pop() {
    std::uint64_t old = top_.load();
    while (index(old) != 0) {
      const std::uint32_t next = nodes_[index(old) - 1].next.load();
      if (top_.compare_exchange_weak(old, head(next, old))) {  // the bug: A may have been freed and reused since
        const int value = nodes_[index(old) - 1].value;
        freed_.push_back(index(old));
        return value;
      }
    }
    return std::nullopt;
  }

 private:
  static constexpr std::uint32_t capacity = 16;  // more than a scenario's pushes
  struct node {
    int value = 0;
    heddle::atomic<std::uint32_t> next{0};  // index + 1 of the node below; 0: none
  };
  // The head is the top node's index + 1 in the low half, a tag in the high half.
  static std::uint32_t index(std::uint64_t head) { return static_cast<std::uint32_t>(head); }
  static std::uint64_t head(std::uint32_t index, std::uint64_t old) {
    const std::uint64_t tag = (old >> 32) + (Tagged ? 1 : 0);
    return tag << 32 | index;
  }
  std::uint32_t allocate() {
    if (freed_.empty()) return ++used_;
    const std::uint32_t n = freed_.front();
    freed_.pop_front();
    return n;
  }

  std::array<node, capacity> nodes_;
  heddle::atomic<std::uint64_t> top_{0};
  std::deque<std::uint32_t> freed_;
  std::uint32_t used_ = 0;  // nodes handed out for the first time
};

using aba_stack = treiber_stack<false>;
using tagged_stack = treiber_stack<true>;

struct seq_int_stack {
  std::vector<int> items;
  void push(int value) { items.push_back(value); }
  std::optional<int> pop() {
    if (items.empty()) return std::nullopt;
    const int value = items.back();
    items.pop_back();
    return value;
  }
  bool operator==(const seq_int_stack&) const = default;
};

// Two pushes before the parallel part give the stack the two nodes the bug
// needs; each pushed value is distinct enough to show which came out twice.
template <class Stack>
heddle::lincheck::spec<Stack, seq_int_stack> treiber_spec() {
  return heddle::lincheck::spec<Stack, seq_int_stack>()
      .op("push", &Stack::push, &seq_int_stack::push, heddle::lincheck::range(1, 9))
      .op("pop", &Stack::pop, &seq_int_stack::pop)
      .threads(2)
      .ops_per_thread(3)
      .init_ops(2);
}

}  // namespace examples
