// The verifiers on hand-made histories, where the right answer is known:
// linearizable and not, sequentially consistent but not linearizable,
// quiescent points, and calls that never returned (partial operations).
#include <optional>

#include <gtest/gtest.h>

#include "blocking_queue.hpp"
#include "queue.hpp"

namespace {

using heddle::lincheck::check_history;
using heddle::lincheck::consistency;
using heddle::lincheck::history;
using heddle::lincheck::no_result;
using heddle::lincheck::part;

const auto queue = examples::queue_spec<examples::fixed_queue>();
const heddle::lincheck::declaration queue_decl = queue;
using opt = std::optional<int>;

bool holds(const history& h, consistency c) { return check_history(queue_decl, h, c).ok; }

TEST(lincheck_verifier, overlapping_calls_may_take_effect_in_either_order) {
  // T1 enqueue(1) [1,4] overlaps T2 dequeue() -> 1 [2,3].
  const history h{queue.record("enqueue", 1, 1, 4, no_result, 1), queue.record("dequeue", 2, 2, 3, opt(1))};
  const auto v = check_history(queue_decl, h, consistency::linearizable);
  EXPECT_TRUE(v.ok);
  EXPECT_EQ(v.order, (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(v.explanation.empty());
}

TEST(lincheck_verifier, a_dequeue_after_a_finished_enqueue_must_see_it) {
  // enqueue(1) [1,2] returns before dequeue() [3,4] starts, which says empty.
  const history h{queue.record("enqueue", 1, 1, 2, no_result, 1), queue.record("dequeue", 2, 3, 4, opt())};
  const auto v = check_history(queue_decl, h, consistency::linearizable);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.explanation.find("linearizability"), std::string::npos) << v.explanation;
  EXPECT_NE(v.explanation.find("1 of 2 calls: enqueue(1): void [T1]"), std::string::npos) << v.explanation;
  EXPECT_NE(v.explanation.find("dequeue() [T2] returned none, but the model returns 1 here"), std::string::npos)
      << v.explanation;
  // Sequential consistency may order the other thread's dequeue first.
  EXPECT_TRUE(holds(h, consistency::sequentially_consistent));
  // A quiescent point lies between the calls: real time holds.
  EXPECT_FALSE(holds(h, consistency::quiescently_consistent));
}

TEST(lincheck_verifier, program_order_binds_sequential_consistency) {
  // The same calls in one thread: no order explains them.
  const history h{queue.record("enqueue", 1, 1, 2, no_result, 1), queue.record("dequeue", 1, 3, 4, opt())};
  EXPECT_FALSE(holds(h, consistency::sequentially_consistent));
}

TEST(lincheck_verifier, without_a_quiescent_point_calls_may_reorder) {
  // T2's dequeue() -> 2 spans T1's enqueue(1) [2,3] and enqueue(2) [4,5]: only
  // quiescent consistency may put enqueue(2) first.
  const history h{queue.record("dequeue", 2, 1, 6, opt(2)), queue.record("enqueue", 1, 2, 3, no_result, 1),
                  queue.record("enqueue", 1, 4, 5, no_result, 2)};
  EXPECT_FALSE(holds(h, consistency::linearizable));
  EXPECT_FALSE(holds(h, consistency::sequentially_consistent));
  EXPECT_TRUE(holds(h, consistency::quiescently_consistent));
}

TEST(lincheck_verifier, a_call_that_never_returned_may_have_taken_effect) {
  // enqueue(1) never returned, yet dequeue() -> 1: it took effect.
  history h{queue.record("enqueue", 1, 1, std::nullopt, no_result, 1), queue.record("dequeue", 2, 2, 3, opt(1))};
  EXPECT_TRUE(holds(h, consistency::linearizable));
  // ... or not: dequeue() -> none is fine too.
  h[1] = queue.record("dequeue", 2, 2, 3, opt());
  EXPECT_TRUE(holds(h, consistency::linearizable));
  // But nothing explains a 2.
  h[1] = queue.record("dequeue", 2, 2, 3, opt(2));
  EXPECT_FALSE(holds(h, consistency::linearizable));
}

TEST(lincheck_verifier, a_call_blocked_at_a_deadlock_must_be_blocked_in_the_model) {
  const auto bq = tests::blocking_queue_spec<tests::blocking_queue<true>>();
  const heddle::lincheck::declaration decl = bq;
  // take() waits forever on an empty queue: the model blocks too.
  history h{bq.record("take", 1, 1, std::nullopt, no_result)};
  EXPECT_TRUE(check_history(decl, h, consistency::linearizable, true).ok);
  // After put(3) returned, a take() waiting forever is a lost wake-up.
  h.insert(h.begin(), bq.record("put", 2, 0, 1, no_result, 3));
  h[1].invoked = 2;
  const auto v = check_history(decl, h, consistency::linearizable, true);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.explanation.find("take() [T1] never returned, but the model would let it return here"),
            std::string::npos)
      << v.explanation;
}

TEST(lincheck_verifier, a_completed_call_the_model_blocks_is_not_explained) {
  const auto bq = tests::blocking_queue_spec<tests::blocking_queue<true>>();
  const history h{bq.record("take", 1, 1, 2, 7)};
  const auto v = check_history(bq, h, consistency::linearizable);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.explanation.find("take() [T1] returned 7, but the model says it would block here"), std::string::npos)
      << v.explanation;
}

// 3 threads x 5 calls: the memo keeps the search small.
TEST(lincheck_verifier, fifteen_overlapping_calls_are_checked_with_the_memo) {
  history h;
  // Every call overlaps every other: 5 enqueues of 1 and 10 dequeues, 5 of which see 1.
  for (std::size_t i = 0; i < 15; ++i) {
    const std::size_t thread = i % 3 + 1;
    if (i < 5) h.push_back(queue.record("enqueue", thread, i + 1, 100 + i, no_result, 1));
    else h.push_back(queue.record("dequeue", thread, i + 1, 100 + i, i < 10 ? opt(1) : opt()));
  }
  const auto v = check_history(queue_decl, h, consistency::linearizable);
  EXPECT_TRUE(v.ok);
  EXPECT_LT(v.states, 2000u);
  h.back() = queue.record("dequeue", 3, 15, 114, opt(2));
  EXPECT_FALSE(check_history(queue_decl, h, consistency::linearizable).ok);
}

}  // namespace
