// Michael and Scott's lock-free queue (PODC 1996) on heddle::atomic, in two
// versions for lincheck (docs/lincheck.md).
//
// racy_queue's dequeue moves the head with a plain store where the algorithm
// has a compare-and-swap: two dequeues that read the same head both return
// its successor's value. fixed_queue uses the compare-and-swap. Nodes are
// kept until the queue is destroyed (no memory reclamation: that is a problem
// of its own). seq_queue is the sequential model.
#pragma once

#include <deque>
#include <memory>
#include <optional>

#include <heddle/atomic.hpp>
#include <heddle/lincheck.hpp>

namespace examples {

template <bool CasHead>
class ms_queue {
  struct node {
    int value = 0;
    heddle::atomic<node*> next{nullptr};
  };

 public:
  ms_queue() {
    node* dummy = make(0);
    head_.store(dummy);
    tail_.store(dummy);
  }

  void enqueue(int value) {
    node* fresh = make(value);
    for (;;) {
      node* last = tail_.load();
      node* next = last->next.load();
      if (last != tail_.load()) continue;
      if (next == nullptr) {
        if (last->next.compare_exchange_weak(next, fresh)) {
          tail_.compare_exchange_strong(last, fresh);
          return;
        }
      } else {
        tail_.compare_exchange_strong(last, next);  // help a lagging enqueue
      }
    }
  }

  std::optional<int> dequeue() {
    for (;;) {
      node* first = head_.load();
      node* last = tail_.load();
      node* next = first->next.load();
      if (first != head_.load()) continue;
      if (first == last) {
        if (next == nullptr) return std::nullopt;
        tail_.compare_exchange_strong(last, next);
        continue;
      }
      const int value = next->value;
      if constexpr (CasHead) {
        if (head_.compare_exchange_weak(first, next)) return value;
      } else {
        head_.store(next);  // the bug: another dequeue may have moved the head meanwhile
        return value;
      }
    }
  }

 private:
  // Only one operation runs at a time under heddle, so the node list itself
  // needs no synchronization; it is not part of the algorithm.
  node* make(int value) {
    nodes_.push_back(std::make_unique<node>());
    nodes_.back()->value = value;
    return nodes_.back().get();
  }
  std::deque<std::unique_ptr<node>> nodes_;
  heddle::atomic<node*> head_{nullptr};
  heddle::atomic<node*> tail_{nullptr};
};

using racy_queue = ms_queue<false>;
using fixed_queue = ms_queue<true>;

struct seq_queue {
  std::deque<int> items;
  void enqueue(int value) { items.push_back(value); }
  std::optional<int> dequeue() {
    if (items.empty()) return std::nullopt;
    const int value = items.front();
    items.pop_front();
    return value;
  }
  bool operator==(const seq_queue&) const = default;
};

template <class Queue>
heddle::lincheck::spec<Queue, seq_queue> queue_spec() {
  return heddle::lincheck::spec<Queue, seq_queue>()
      .op("enqueue", &Queue::enqueue, &seq_queue::enqueue, heddle::lincheck::range(1, 3))
      .op("dequeue", &Queue::dequeue, &seq_queue::dequeue)
      .threads(2)
      .ops_per_thread(3);
}

}  // namespace examples
