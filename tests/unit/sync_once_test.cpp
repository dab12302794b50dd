// heddle::call_once: runs the callable once per flag, lets another caller
// retry after an exception, makes concurrent callers wait, and is
// std::call_once outside control.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "heddle/explore.hpp"
#include "heddle/once.hpp"
#include "heddle/thread.hpp"

namespace {
heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

heddle::once_flag global_flag;  // outlives iterations: starts unset in each
int global_runs = 0;
}  // namespace

TEST(once, callable_runs_once_and_callers_wait_for_it) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::once_flag flag;
    int runs = 0;
    bool initialized = false;
    auto init = [&] {
      heddle::call_once(flag, [&] {
        ++runs;
        heddle::scheduling_point(heddle::point_kind::yield);  // others may arrive meanwhile
        initialized = true;
      });
      HEDDLE_ASSERT(initialized);  // nobody returns before the callable finished
    };
    heddle::thread a(init);
    heddle::thread b(init);
    init();
    a.join();
    b.join();
    HEDDLE_ASSERT(runs == 1);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 2000u);
}

TEST(once, global_flag_is_fresh_in_every_iteration) {
  global_runs = 0;
  auto r = heddle::explore(quiet({.iterations = 100}), [] {
    heddle::call_once(global_flag, [] { ++global_runs; });
    heddle::call_once(global_flag, [] { ++global_runs; });
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(global_runs, 100);
}

TEST(once, exception_leaves_flag_unset_so_another_caller_retries) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    heddle::once_flag flag;
    int attempts = 0;
    int successes = 0;
    int failures_seen = 0;
    auto init = [&] {
      try {
        heddle::call_once(flag, [&] {
          heddle::scheduling_point(heddle::point_kind::yield);
          if (++attempts == 1) throw std::runtime_error("first attempt fails");
          ++successes;
        });
      } catch (const std::runtime_error&) {
        ++failures_seen;
      }
    };
    heddle::thread a(init);
    init();
    a.join();
    HEDDLE_ASSERT(attempts == 2 && successes == 1 && failures_seen == 1);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(once, recursive_call_on_the_same_flag_is_misuse) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::once_flag flag;
    heddle::call_once(flag, [&] { heddle::call_once(flag, [] {}); });
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message,
            "call_once on a heddle::once_flag from inside its own callable (operation 1): a deadlock in std");
}

TEST(once, outside_control_is_std_call_once) {
  heddle::once_flag flag;
  std::atomic<int> runs{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] { heddle::call_once(flag, [&](int n) { runs += n; }, 1); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(runs.load(), 1);

  heddle::once_flag retry;
  EXPECT_THROW(heddle::call_once(retry, [] { throw std::runtime_error("no"); }), std::runtime_error);
  heddle::call_once(retry, [&] { runs += 10; });
  EXPECT_EQ(runs.load(), 11);
}
