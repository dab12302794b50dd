// lincheck on a real lock-free queue: moodycamel::ConcurrentQueue, its atomics
// under heddle's control through the ThreadSanitizer instrumentation
// (moodycamel_queue.cpp is built by heddle_instrument()).
//
// What moodycamel promises (concurrentqueue.h): elements of one producer come
// out in the order they went in, nothing is lost or duplicated, and
// try_dequeue "returns false if all producer streams appeared empty at the
// time they were checked (so, the queue is likely but not guaranteed to be
// empty)"; size_approx is exact only once the queue is quiescent. It is not
// FIFO across producers. The model says exactly that: one FIFO per producer, a
// dequeue takes the front of any of them, and a failed try_dequeue (or an
// inexact size_approx) is accepted in a non-empty state only when the call
// overlapped another one. The object wrapper observes the overlap; the model
// judges each result with heddle::lincheck::returned<R>.
//
// The checks fail when they should: a model that claims global FIFO, and a
// wrapper that loses an element, are both caught; and the runs' decisions
// include the queue's atomic operations.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <ostream>

#include "heddle/lincheck.hpp"
#include "moodycamel_queue.hpp"

namespace {

using heddle::lincheck::returned;

// Did a call overlap another? A ticket per call: overlapped when another call
// was in progress at its start, or started before it returned. The wrapper is
// not instrumented and heddle runs one operation at a time, so plain counters
// are exact.
class overlap_clock {
 public:
  struct ticket {
    std::uint64_t number;
    bool overlapped;
  };
  ticket enter() {
    ++in_flight_;
    return {++entered_, in_flight_ > 1};
  }
  bool leave(const ticket& t) {
    --in_flight_;
    return t.overlapped || entered_ != t.number;
  }

 private:
  int in_flight_ = 0;
  std::uint64_t entered_ = 0;
};

// What a call of try_dequeue and size_approx returned, and whether it
// overlapped another call.
struct dequeued {
  std::optional<int> value;
  bool overlapped = false;
  bool operator==(const dequeued&) const = default;
};
std::ostream& operator<<(std::ostream& os, const dequeued& d) {
  if (d.value) os << *d.value;
  else os << "empty";
  return os << (d.overlapped ? " (overlapped)" : "");
}
struct counted {
  std::size_t value = 0;
  bool overlapped = false;
  bool operator==(const counted&) const = default;
};
std::ostream& operator<<(std::ostream& os, const counted& c) {
  return os << c.value << (c.overlapped ? " (overlapped)" : "");
}

// The object under test: the queue and the overlap clock. Producer a enqueues
// 10..12, producer b 20..22, so a dequeued value names its producer.
template <bool Lossy>
class checked_queue {
 public:
  void enqueue_a(int v) { enqueue(0, v); }
  void enqueue_b(int v) { enqueue(1, v); }
  dequeued try_dequeue() {
    const auto t = clock_.enter();
    const std::optional<int> v = queue_.try_dequeue();
    return {v, clock_.leave(t)};
  }
  counted size_approx() {
    const auto t = clock_.enter();
    const std::size_t n = queue_.size_approx();
    return {n, clock_.leave(t)};
  }

 private:
  void enqueue(int producer, int v) {
    const auto t = clock_.enter();
    queue_.enqueue(producer, v);
    clock_.leave(t);
  }
  moodycamel_check::queue queue_{Lossy};
  overlap_clock clock_;
};

// moodycamel's contract: FIFO per producer.
struct per_producer_fifo {
  std::deque<int> a, b;
  void enqueue_a(int v) { a.push_back(v); }
  void enqueue_b(int v) { b.push_back(v); }
  bool try_dequeue(returned<dequeued> got) {
    if (!got.known()) return true;  // never returned: as if it had failed
    if (!got->value) return (a.empty() && b.empty()) || got->overlapped;
    for (std::deque<int>* q : {&a, &b}) {
      if (!q->empty() && q->front() == *got->value) {
        q->pop_front();
        return true;
      }
    }
    return false;
  }
  bool size_approx(returned<counted> got) const {
    return !got.known() || got->overlapped || got->value == a.size() + b.size();
  }
  bool operator==(const per_producer_fifo&) const = default;
};

// A wrong model: one FIFO for everything (moodycamel never promised it).
struct global_fifo {
  std::deque<int> items;
  void enqueue_a(int v) { items.push_back(v); }
  void enqueue_b(int v) { items.push_back(v); }
  bool try_dequeue(returned<dequeued> got) {
    if (!got.known()) return true;
    if (!got->value) return items.empty() || got->overlapped;
    if (items.empty() || items.front() != *got->value) return false;
    items.pop_front();
    return true;
  }
  bool size_approx(returned<counted> got) const {
    return !got.known() || got->overlapped || got->value == items.size();
  }
  bool operator==(const global_fifo&) const = default;
};

template <class Object, class Model>
heddle::lincheck::spec<Object, Model> queue_spec() {
  namespace lc = heddle::lincheck;
  return lc::spec<Object, Model>()
      .op("enqueue_a", &Object::enqueue_a, &Model::enqueue_a, lc::range(10, 12))
      .group("producer a")
      .op("enqueue_b", &Object::enqueue_b, &Model::enqueue_b, lc::range(20, 22))
      .group("producer b")
      .op("try_dequeue", &Object::try_dequeue, &Model::try_dequeue)
      .op("size_approx", &Object::size_approx, &Model::size_approx)
      .threads(3)
      .ops_per_thread(2)
      .init_ops(2)
      .post_ops(2)
      .print_report(false);
}

}  // namespace

TEST(moodycamel, is_fifo_per_producer_under_controlled_atomics) {
  const auto r = heddle::lincheck::check(queue_spec<checked_queue<false>, per_producer_fifo>().scenarios(200).iterations(30));
  ASSERT_FALSE(r.failure) << r.failure->report;
  EXPECT_EQ(r.scenarios, 200u);
  // The queue's atomics are scheduling points: most decisions are at them.
  EXPECT_GT(r.atomic_steps, r.runs * 10) << r.steps << " steps in " << r.runs << " runs";
  EXPECT_GT(r.atomic_steps * 2, r.steps) << r.atomic_steps << " atomic of " << r.steps << " steps";
  // Under the default memory policy (shared), the queue's plain fields that
  // two operations touch are points too: the blocks' element slots (written
  // by a producer, read by a consumer), and the fields the constructor wrote
  // that the threads read (about 60 per run, against about 280 under `all`).
  EXPECT_GT(r.memory_steps, r.runs * 10) << r.memory_steps << " memory steps in " << r.runs << " runs";
}

TEST(moodycamel, is_not_globally_fifo) {
  const auto r = heddle::lincheck::check(queue_spec<checked_queue<false>, global_fifo>().scenarios(100).iterations(20));
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->kind, "non-linearizable");
  EXPECT_LT(r.failure->scenario_index, 100u);
  EXPECT_NE(r.failure->message.find("try_dequeue() ["), std::string::npos) << r.failure->message;
  EXPECT_NE(r.failure->message.find("which the model does not accept here"), std::string::npos) << r.failure->message;
}

TEST(moodycamel, a_wrapper_that_loses_an_element_is_caught) {
  const auto r = heddle::lincheck::check(queue_spec<checked_queue<true>, per_producer_fifo>().scenarios(100).iterations(20));
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->kind, "non-linearizable");
  EXPECT_NE(r.failure->message.find("which the model does not accept here"), std::string::npos) << r.failure->message;
}
