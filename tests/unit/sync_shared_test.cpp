// heddle::shared<T>: plain memory made visible to the scheduler. A compound
// update is a read point then a write point, so lost updates are found.
#include <gtest/gtest.h>

#include <string>

#include "heddle/explore.hpp"
#include "heddle/shared.hpp"
#include "heddle/thread.hpp"

namespace {
heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}
}  // namespace

TEST(shared, increment_from_two_operations_loses_an_update) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::shared<int> x{0};
    heddle::thread a([&] { x++; });
    heddle::thread b([&] { x++; });
    a.join();
    b.join();
    HEDDLE_ASSERT(x == 2);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: x == 2");
}

TEST(shared, compound_assignment_is_a_read_then_a_write) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::shared<long> total{10};
    heddle::thread a([&] { total += 5; });
    total -= 3;
    a.join();
    HEDDLE_ASSERT(total.load() == 12);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: total.load() == 12");
}

TEST(shared, accesses_are_read_and_write_points_on_a_variable) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::shared<int> x{0};
    heddle::thread a([&] { x = 1; });
    const int seen = x;
    a.join();
    HEDDLE_ASSERT(seen == 1);  // fails when main reads before a writes
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "assertion failed: seen == 1");
  bool read = false, write = false;
  for (const auto& step : r.trace.steps) {
    read = read || step.point == heddle::point_kind::read;
    write = write || step.point == heddle::point_kind::write;
  }
  EXPECT_TRUE(read);
  EXPECT_TRUE(write);
}

TEST(shared, single_operation_use_is_plain_outside_control) {
  heddle::shared<std::string> s{"a"};
  s = s.load() + "b";
  s += "c";
  EXPECT_EQ(s.load(), "abc");
  heddle::shared<int> n;
  EXPECT_EQ(++n, 1);
  EXPECT_EQ(n++, 1);
  EXPECT_EQ(--n, 1);
  EXPECT_EQ(n--, 1);
  EXPECT_EQ(static_cast<int>(n), 0);
}
