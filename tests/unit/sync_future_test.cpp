// heddle::future, shared_future, promise, packaged_task and async: results
// and exceptions cross operations, broken promises and misuse raise the std
// errors, deferred work runs lazily, timed waits explore timeout and ready,
// and outside control everything behaves like std.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <semaphore>
#include <stdexcept>
#include <string>
#include <thread>

#include "heddle/explore.hpp"
#include "heddle/future.hpp"
#include "heddle/thread.hpp"

using namespace std::chrono_literals;

namespace {
heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}
}  // namespace

TEST(future, value_crosses_operations_through_a_promise) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    heddle::promise<std::string> p;
    heddle::future<std::string> f = p.get_future();
    heddle::thread t([&] { p.set_value("hello"); });
    HEDDLE_ASSERT(f.get() == "hello");
    HEDDLE_ASSERT(!f.valid());
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 1000u);
}

TEST(future, exception_propagates_through_get) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::promise<int> p;
    auto f = p.get_future();
    heddle::thread t([&] { p.set_exception(std::make_exception_ptr(std::runtime_error("boom"))); });
    bool caught = false;
    try {
      (void)f.get();
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "boom";
    }
    HEDDLE_ASSERT(caught);
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, uncaught_exception_from_get_is_reported) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    auto f = heddle::async(heddle::launch::async, [] { throw std::runtime_error("task failed"); });
    f.get();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::uncaught_exception);
  EXPECT_NE(r.bug->message.find("task failed"), std::string::npos) << r.bug->message;
}

TEST(future, destroyed_promise_breaks_its_future) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::future<int> f;
    {
      auto p = std::make_unique<heddle::promise<int>>();
      f = p->get_future();
      heddle::thread t([p = std::move(p)]() mutable { p.reset(); });
      t.join();
    }
    bool broken = false;
    try {
      (void)f.get();
    } catch (const heddle::future_error& e) {
      broken = e.code() == heddle::future_errc::broken_promise;
    }
    HEDDLE_ASSERT(broken);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, broken_promise_uncaught_is_reported_with_std_message) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::future<void> f;
    {
      heddle::promise<void> p;
      f = p.get_future();
    }
    f.get();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::uncaught_exception);
  EXPECT_NE(r.bug->message.find("std::future_error"), std::string::npos) << r.bug->message;
  EXPECT_NE(r.bug->message.find(std::make_error_code(std::future_errc::broken_promise).message()), std::string::npos)
      << r.bug->message;
}

TEST(future, misuse_raises_std_future_errors) {
  auto code_of = [](auto&& fn) {
    try {
      fn();
    } catch (const heddle::future_error& e) {
      return e.code();
    }
    return std::error_code();
  };
  auto r = heddle::explore(quiet({.iterations = 5}), [&] {
    heddle::promise<int> p;
    auto f = p.get_future();
    HEDDLE_ASSERT(code_of([&] { (void)p.get_future(); }) == heddle::future_errc::future_already_retrieved);
    p.set_value(1);
    HEDDLE_ASSERT(code_of([&] { p.set_value(2); }) == heddle::future_errc::promise_already_satisfied);
    HEDDLE_ASSERT(f.get() == 1);
    HEDDLE_ASSERT(code_of([&] { (void)f.get(); }) == heddle::future_errc::no_state);
    heddle::promise<int> moved_from;
    heddle::promise<int> taker(std::move(moved_from));
    HEDDLE_ASSERT(code_of([&] { moved_from.set_value(3); }) == heddle::future_errc::no_state);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, void_and_reference_results) {
  auto r = heddle::explore(quiet({.iterations = 300}), [] {
    int target = 1;
    heddle::promise<int&> pr;
    heddle::promise<void> pv;
    auto fr = pr.get_future();
    auto fv = pv.get_future();
    heddle::thread t([&] {
      pr.set_value(target);
      pv.set_value();
    });
    int& ref = fr.get();
    ref = 5;
    fv.get();
    HEDDLE_ASSERT(target == 5);
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, shared_future_gives_every_copy_the_value) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    heddle::promise<int> p;
    heddle::shared_future<int> sf = p.get_future().share();
    int a = 0, b = 0;
    heddle::thread ta([&, sf] { a = sf.get(); });
    heddle::thread tb([&, sf] { b = sf.get() + sf.get(); });
    p.set_value(21);
    ta.join();
    tb.join();
    HEDDLE_ASSERT(a == 21 && b == 42 && sf.get() == 21);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, packaged_task_delivers_result_and_exception) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::packaged_task<int(int, int)> add([](int x, int y) { return x + y; });
    auto f = add.get_future();
    heddle::thread t(std::move(add), 2, 3);
    HEDDLE_ASSERT(f.get() == 5);
    t.join();

    heddle::packaged_task<void()> fail([] { throw std::logic_error("bad"); });
    auto g = fail.get_future();
    fail();
    bool caught = false;
    try {
      g.get();
    } catch (const std::logic_error&) {
      caught = true;
    }
    HEDDLE_ASSERT(caught);
    fail.reset();
    HEDDLE_ASSERT(fail.valid());
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, unrun_packaged_task_breaks_its_future) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::future<int> f;
    {
      heddle::packaged_task<int()> task([] { return 1; });
      f = task.get_future();
    }
    bool broken = false;
    try {
      (void)f.get();
    } catch (const heddle::future_error& e) {
      broken = e.code() == heddle::future_errc::broken_promise;
    }
    HEDDLE_ASSERT(broken);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, async_runs_as_a_new_operation_and_races_with_the_caller) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    int x = 0;
    auto f = heddle::async(heddle::launch::async, [&] {
      heddle::scheduling_point(heddle::point_kind::yield);
      return ++x;
    });
    heddle::scheduling_point(heddle::point_kind::yield);
    const bool before = x == 0;
    HEDDLE_ASSERT(f.get() == 1);
    HEDDLE_ASSERT_MSG(!before, "caller ran before the async task");
  });
  ASSERT_TRUE(r.bug);  // both orders are explored
  EXPECT_EQ(r.bug->message, "caller ran before the async task");
}

TEST(future, async_future_destructor_joins_the_task) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    bool done = false;
    {
      auto f = heddle::async([&] {
        heddle::scheduling_point(heddle::point_kind::yield);
        done = true;
      });
    }  // ~future of an async state waits for the task, as std's does
    HEDDLE_ASSERT(done);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 1000u);
}

TEST(future, deferred_async_runs_lazily_in_the_caller) {
  auto r = heddle::explore(quiet({.iterations = 200}), [] {
    int runs = 0;
    heddle::operation_id ran_on = 0;
    auto f = heddle::async(heddle::launch::deferred, [&](int v) {
      ++runs;
      ran_on = heddle::current_operation();
      return v * 2;
    }, 21);
    heddle::scheduling_point(heddle::point_kind::yield);
    HEDDLE_ASSERT(runs == 0);
    HEDDLE_ASSERT(f.wait_for(1s) == heddle::future_status::deferred);
    HEDDLE_ASSERT(f.get() == 42);
    HEDDLE_ASSERT(runs == 1 && ran_on == heddle::current_operation());
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, wait_for_explores_both_timeout_and_ready) {
  int timeouts = 0, readies = 0;
  auto r = heddle::explore(quiet({.iterations = 500}), [&] {
    heddle::promise<int> p;
    auto f = p.get_future();
    heddle::thread t([&] { p.set_value(1); });
    const auto start = heddle::chrono::steady_clock::now();
    const auto status = f.wait_for(10ms);
    const auto waited = heddle::chrono::steady_clock::now() - start;
    if (status == heddle::future_status::timeout) {
      ++timeouts;
      HEDDLE_ASSERT(waited == 10ms);  // virtual time jumped to the deadline
    } else {
      ++readies;
      HEDDLE_ASSERT(status == heddle::future_status::ready);
    }
    t.join();
    HEDDLE_ASSERT(f.get() == 1);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(timeouts, 0);
  EXPECT_GT(readies, 0);
}

TEST(future, wait_until_on_a_never_satisfied_future_times_out) {
  auto r = heddle::explore(quiet({.iterations = 50}), [] {
    heddle::promise<int> p;
    auto f = p.get_future();
    const auto deadline = heddle::chrono::steady_clock::now() + 1h;
    HEDDLE_ASSERT(f.wait_until(deadline) == heddle::future_status::timeout);
    HEDDLE_ASSERT(heddle::chrono::steady_clock::now() == deadline);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(future, get_on_a_never_satisfied_future_deadlocks) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::promise<int> p;
    auto f = p.get_future();
    (void)f.get();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for future #"), std::string::npos) << r.bug->message;
}

TEST(future, outside_control_behaves_like_std) {
  heddle::promise<int> p;
  auto f = p.get_future();
  // The value is set only after the main thread has seen the future not ready, so the
  // timeout outcome does not depend on how fast the other thread runs.
  std::binary_semaphore checked{0};
  std::thread t([&] {
    checked.acquire();
    p.set_value(7);
  });
  EXPECT_EQ(f.wait_for(0ms), heddle::future_status::timeout);
  checked.release();
  EXPECT_EQ(f.get(), 7);
  t.join();

  auto a = heddle::async(heddle::launch::async, [](int v) { return v + 1; }, 1);
  EXPECT_EQ(a.get(), 2);
  bool ran = false;
  auto d = heddle::async(heddle::launch::deferred, [&] { ran = true; });
  EXPECT_EQ(d.wait_for(1s), heddle::future_status::deferred);
  EXPECT_FALSE(ran);
  d.wait();
  EXPECT_TRUE(ran);

  auto e = heddle::async([] { throw std::runtime_error("x"); });
  EXPECT_THROW(e.get(), std::runtime_error);

  heddle::future<int> broken;
  { heddle::promise<int> q; broken = q.get_future(); }
  try {
    (void)broken.get();
    ADD_FAILURE() << "no exception";
  } catch (const std::future_error& err) {
    EXPECT_EQ(err.code(), std::future_errc::broken_promise);
  }
}

TEST(future, deadlock_while_async_future_destructor_joins_is_reported_not_a_crash) {
  auto r = heddle::explore(quiet({.iterations = 20}), [] {
    heddle::promise<void> never;
    {
      auto f = heddle::async(heddle::launch::async, [&] { never.get_future().wait(); });
    }
    HEDDLE_ASSERT_MSG(false, "not reached: ~future cannot join");
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for future #"), std::string::npos) << r.bug->message;
}
