// A blocking queue whose take() waits for an element: a partial operation. The
// lost_wakeup version notifies only when the queue was empty, so with two
// takers waiting the second put wakes nobody and a taker waits forever next to
// an element the model would hand it.
#pragma once

#include <deque>
#include <mutex>
#include <optional>

#include <heddle/condition_variable.hpp>
#include <heddle/lincheck.hpp>
#include <heddle/mutex.hpp>

#include "queue.hpp"

namespace tests {

template <bool NotifyEveryPut>
class blocking_queue {
 public:
  void put(int value) {
    std::unique_lock<heddle::mutex> lock(mutex_);
    const bool was_empty = items_.empty();
    items_.push_back(value);
    if (NotifyEveryPut || was_empty) nonempty_.notify_one();
  }
  int take() {
    std::unique_lock<heddle::mutex> lock(mutex_);
    while (items_.empty()) nonempty_.wait(lock);
    const int value = items_.front();
    items_.pop_front();
    return value;
  }

 private:
  heddle::mutex mutex_;
  heddle::condition_variable nonempty_;
  std::deque<int> items_;
};

// The model is the queue example's: its dequeue() returns nothing where take()
// would block.
using seq_blocking_queue = examples::seq_queue;

template <class Queue>
heddle::lincheck::spec<Queue, seq_blocking_queue> blocking_queue_spec() {
  return heddle::lincheck::spec<Queue, seq_blocking_queue>()
      .op("put", &Queue::put, &seq_blocking_queue::enqueue, heddle::lincheck::range(1, 3))
      .op("take", &Queue::take, &seq_blocking_queue::dequeue)
      .threads(3)
      .ops_per_thread(2)
      .init_ops(0)
      .post_ops(0)
      .print_report(false);
}

}  // namespace tests
