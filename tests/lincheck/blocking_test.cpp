// Blocking operations as partial operations: a take() that waits on an empty
// queue is fine when the model says it would block too (the run deadlocks,
// legitimately); a taker left waiting next to an element is a deadlock bug.
#include <gtest/gtest.h>

#include <heddle/atomic.hpp>

#include "blocking_queue.hpp"

namespace {

TEST(lincheck_blocking, correct_blocking_queue_passes_with_takes_left_waiting) {
  auto d = heddle::lincheck::declaration(tests::blocking_queue_spec<tests::blocking_queue<true>>());
  d.opts.scenarios = 200;
  d.opts.iterations = 10;
  const auto r = heddle::lincheck::check(d);
  EXPECT_FALSE(r.failure) << r.failure->report;
}

TEST(lincheck_blocking, lost_wakeup_is_reported_as_a_deadlock_the_model_would_not_have) {
  const auto r = heddle::lincheck::check(tests::blocking_queue_spec<tests::blocking_queue<false>>());
  ASSERT_TRUE(r.failure);
  const auto& f = *r.failure;
  EXPECT_EQ(f.kind, "deadlock") << f.report;
  ASSERT_TRUE(f.bug);
  EXPECT_EQ(*f.bug, heddle::bug_kind::deadlock);
  EXPECT_NE(f.message.find("waits for condition_variable"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("take() [T"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("never returned, but the model would let it return here"), std::string::npos)
      << f.message;
  EXPECT_NE(f.report.find("(never returned)"), std::string::npos) << f.report;
}

// The model's enabling condition can also be a predicate: when().
struct counter_model {
  int value = 0;
  void up() { ++value; }
  void down() { --value; }
  bool positive() const { return value > 0; }
  bool operator==(const counter_model&) const = default;
};
struct plain_counter {  // down() does not wait: wrong for a semaphore-like counter
  int value = 0;
  void up() { ++value; }
  void down() { --value; }
};

TEST(lincheck_blocking, when_predicate_makes_an_operation_partial) {
  const auto r = heddle::lincheck::check(heddle::lincheck::spec<plain_counter, counter_model>()
                                             .op("up", &plain_counter::up, &counter_model::up)
                                             .op("down", &plain_counter::down, &counter_model::down)
                                             .when(&counter_model::positive)
                                             .print_report(false));
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->kind, "non-linearizable");
  EXPECT_NE(r.failure->message.find("down() [") , std::string::npos) << r.failure->message;
  EXPECT_NE(r.failure->message.find("would block here"), std::string::npos) << r.failure->message;
}

// A call that spins forever: with fail_on_max_steps, heddle's livelock.
struct spin_flag {
  heddle::atomic<bool> flag{false};
  void set() { flag.store(true); }
  void await() {
    while (!flag.load()) {
    }
  }
};
struct flag_model {
  bool flag = false;
  void set() { flag = true; }
  bool await() const { return flag; }  // blocks until set
  bool operator==(const flag_model&) const = default;
};

TEST(lincheck_blocking, a_call_spinning_forever_is_a_livelock_with_fail_on_max_steps) {
  const auto r = heddle::lincheck::check(heddle::lincheck::spec<spin_flag, flag_model>()
                                             .op("await", &spin_flag::await, &flag_model::await)
                                             .init_ops(0)
                                             .post_ops(0)
                                             .max_steps(500)
                                             .fail_on_max_steps(true)
                                             .print_report(false));
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->kind, "livelock");
  ASSERT_TRUE(r.failure->bug);
  EXPECT_EQ(*r.failure->bug, heddle::bug_kind::livelock);
  EXPECT_EQ(r.failure->operations, (std::vector<std::string>{"await"})) << r.failure->report;
}

}  // namespace
