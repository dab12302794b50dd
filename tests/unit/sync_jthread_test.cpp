// heddle::stop_source / stop_token / stop_callback and heddle::jthread, under
// control and outside (where they must behave like std).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/jthread.hpp"
#include "heddle/stop_token.hpp"
#include "heddle/thread.hpp"

namespace {
heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}
}  // namespace

TEST(stop_token, request_runs_callbacks_once_and_reports_state) {
  heddle::stop_source src;
  heddle::stop_token tok = src.get_token();
  int runs = 0;
  heddle::stop_callback cb(tok, [&] { ++runs; });
  EXPECT_TRUE(tok.stop_possible());
  EXPECT_FALSE(tok.stop_requested());
  EXPECT_TRUE(src.request_stop());
  EXPECT_FALSE(src.request_stop());
  EXPECT_TRUE(tok.stop_requested());
  EXPECT_EQ(runs, 1);
  // Registered after the request: runs at once, in the constructor.
  heddle::stop_callback late(tok, [&] { runs += 10; });
  EXPECT_EQ(runs, 11);
}

TEST(stop_token, stop_possible_follows_std) {
  heddle::stop_token empty;
  EXPECT_FALSE(empty.stop_possible());
  heddle::stop_source none(heddle::nostopstate);
  EXPECT_FALSE(none.stop_possible());
  heddle::stop_token tok;
  {
    heddle::stop_source src;
    tok = src.get_token();
    EXPECT_TRUE(tok.stop_possible());
  }
  EXPECT_FALSE(tok.stop_possible());  // no source left and no request made
}

TEST(stop_token, deregistered_callback_does_not_run) {
  heddle::stop_source src;
  int runs = 0;
  {
    heddle::stop_callback cb(src.get_token(), [&] { ++runs; });
  }
  src.request_stop();
  EXPECT_EQ(runs, 0);
}

TEST(stop_token, outside_control_callback_runs_in_requesting_thread_like_std) {
  heddle::stop_source src;
  std::thread::id ran_on;
  heddle::stop_callback cb(src.get_token(), [&] { ran_on = std::this_thread::get_id(); });
  std::thread requester([&] { src.request_stop(); });
  const auto requester_id = requester.get_id();
  requester.join();
  EXPECT_EQ(ran_on, requester_id);
}

TEST(stop_token, polling_worker_sees_request_under_control) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::stop_source src;
    int polls = 0;
    heddle::thread worker([&, tok = src.get_token()] {
      while (!tok.stop_requested()) ++polls;
    });
    src.request_stop();
    worker.join();
    HEDDLE_ASSERT(src.stop_requested());
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 500u);
}

TEST(stop_token, request_racing_registration_runs_callback_exactly_once) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    heddle::stop_source src;
    int runs = 0;
    heddle::thread requester([&] { src.request_stop(); });
    {
      heddle::stop_callback cb(src.get_token(), [&] { ++runs; });
      requester.join();
    }
    HEDDLE_ASSERT(runs == 1);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(stop_token, callback_destroyed_while_running_elsewhere_waits_for_it) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    heddle::stop_source src;
    bool started = false;
    bool finished = false;
    heddle::thread requester([&] { src.request_stop(); });
    {
      heddle::stop_callback cb(src.get_token(), [&] {
        started = true;
        heddle::scheduling_point(heddle::point_kind::yield);
        finished = true;
      });
      heddle::scheduling_point(heddle::point_kind::yield);
    }
    // Once ~stop_callback returns, its callback has either finished or never started.
    HEDDLE_ASSERT(!started || finished);
    requester.join();
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(jthread, stop_request_reaches_callable_and_destructor_joins) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    bool saw_stop = false;
    bool returned = false;
    {
      heddle::jthread worker([&](heddle::stop_token tok) {
        while (!tok.stop_requested()) heddle::scheduling_point(heddle::point_kind::yield);
        saw_stop = true;
        returned = true;
      });
    }  // ~jthread: request_stop() + join()
    HEDDLE_ASSERT(saw_stop && returned);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 1000u);
}

TEST(jthread, callable_without_token_gets_its_arguments) {
  auto r = heddle::explore(quiet({.iterations = 50}), [] {
    int sum = 0;
    {
      heddle::jthread worker([&](int a, int b) { sum = a + b; }, 2, 3);
    }
    HEDDLE_ASSERT(sum == 5);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(jthread, stop_callback_runs_when_destructor_requests_stop) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    int callbacks = 0;
    {
      heddle::jthread worker([&](heddle::stop_token tok) {
        heddle::stop_callback cb(tok, [&] { ++callbacks; });
        while (!tok.stop_requested()) heddle::scheduling_point(heddle::point_kind::yield);
      });
    }
    HEDDLE_ASSERT(callbacks == 1);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(jthread, joining_twice_is_misuse) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::jthread worker([] {});
    worker.join();
    worker.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message, "join() of a thread that is not joinable (already joined, detached, or empty)");
}

TEST(jthread, outside_control_behaves_like_std_jthread) {
  std::atomic<bool> saw_stop{false};
  {
    heddle::jthread worker([&](heddle::stop_token tok) {
      while (!tok.stop_requested()) std::this_thread::sleep_for(std::chrono::microseconds(50));
      saw_stop = true;
    });
    EXPECT_TRUE(worker.joinable());
    EXPECT_TRUE(worker.get_stop_token().stop_possible());
  }
  EXPECT_TRUE(saw_stop.load());
  heddle::jthread empty;
  EXPECT_FALSE(empty.joinable());
  EXPECT_FALSE(empty.get_stop_token().stop_possible());
}

TEST(jthread, deadlock_while_destructor_joins_is_reported_not_a_crash) {
  auto r = heddle::explore(quiet({.iterations = 20}), [] {
    heddle::atomic<int> never{0};
    {
      heddle::jthread worker([&] { never.wait(0); });  // ignores its stop token
    }
    HEDDLE_ASSERT_MSG(false, "not reached: ~jthread cannot join");
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for atomic #"), std::string::npos) << r.bug->message;
}
