#include <gtest/gtest.h>

#include "heddle/heddle.hpp"

namespace {
heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}
}  // namespace

TEST(engine, lost_update_is_found_and_reported_as_assertion) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    int counter = 0;
    heddle::thread a([&] { int v = counter; heddle::scheduling_point(heddle::point_kind::yield); counter = v + 1; });
    heddle::thread b([&] { int v = counter; heddle::scheduling_point(heddle::point_kind::yield); counter = v + 1; });
    a.join();
    b.join();
    HEDDLE_ASSERT(counter == 2);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: counter == 2");
}

TEST(engine, abba_deadlock_names_both_waits) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    heddle::mutex a, b;
    heddle::thread t([&] { b.lock(); a.lock(); a.unlock(); b.unlock(); });
    a.lock(); b.lock(); b.unlock(); a.unlock();
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  std::cerr << r.report;
}
