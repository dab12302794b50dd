// heddle::monitor: safety checks, and the three liveness rules of
// heddle/monitor.hpp (hot at the end, hot at a max_steps cut after a fair
// part, temperature past its threshold in the fair part only), with threads
// and coroutine tasks as well as actors; found bugs replay 100 times out of
// 100.
#include <gtest/gtest.h>

#include <chrono>

#include "actors/actor_test_support.hpp"
#include "heddle/actor.hpp"
#include "heddle/async.hpp"
#include "heddle/explore.hpp"
#include "heddle/monitor.hpp"
#include "heddle/mutex.hpp"
#include "heddle/task.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"

using namespace actor_tests;
using namespace std::chrono_literals;

namespace {

// --- safety --------------------------------------------------------------------

struct enter {};
struct leave {};
struct exclusive : heddle::monitor {
  exclusive() {
    state("watching")
        .on<enter>([this] {
          check(++inside_ == 1, "two operations inside");
        })
        .on<leave>([this] { --inside_; });
    start_in("watching");
  }
  int inside_ = 0;
};

void critical_section(heddle::mutex* m) {
  if (m != nullptr) m->lock();
  heddle::notify<exclusive>(enter{});
  heddle::this_thread::yield();
  heddle::notify<exclusive>(leave{});
  if (m != nullptr) m->unlock();
}

TEST(monitors, a_safety_monitor_checks_threads) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::thread a([] { critical_section(nullptr); });
    critical_section(nullptr);
    a.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "monitor exclusive in state 'watching': two operations inside");
}

TEST(monitors, the_same_monitor_passes_the_locked_twin) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::mutex m;
    heddle::thread a([&] { critical_section(&m); });
    critical_section(&m);
    a.join();
  });
  EXPECT_TRUE(r) << r.report;
}

// The same monitor, notified from coroutine tasks: each resumption is an
// operation of its own, and the monitor sees every one.
heddle::task<void> critical_section_task(heddle::async_mutex* m) {
  if (m == nullptr) {
    heddle::notify<exclusive>(enter{});
    co_await heddle::yield();
    heddle::notify<exclusive>(leave{});
    co_return;
  }
  auto guard = co_await m->scoped_lock();
  heddle::notify<exclusive>(enter{});
  co_await heddle::yield();
  heddle::notify<exclusive>(leave{});
}

TEST(monitors, a_safety_monitor_checks_tasks_and_passes_their_locked_twin) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    auto a = heddle::run(critical_section_task(nullptr), "a");
    auto b = heddle::run(critical_section_task(nullptr), "b");
    heddle::wait_all(a, b);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "monitor exclusive in state 'watching': two operations inside");
  auto fixed = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::async_mutex m;
    auto a = heddle::run(critical_section_task(&m), "a");
    auto b = heddle::run(critical_section_task(&m), "b");
    heddle::wait_all(a, b);
  });
  EXPECT_TRUE(fixed) << fixed.report;
}

TEST(monitors, notify_is_no_scheduling_point) {
  auto with = heddle::explore(quiet({.iterations = 1, .strategy = "random"}), [] {
    heddle::notify<exclusive>(enter{});
    heddle::notify<exclusive>(leave{});
  });
  EXPECT_TRUE(with) << with.report;
  EXPECT_EQ(with.stats.steps_max, 1u);  // operation 1's start, nothing else
}

TEST(monitors, an_event_the_monitor_state_does_not_take_is_unhandled) {
  struct other {};
  auto r = heddle::explore(quiet({.iterations = 1}), [] { heddle::notify<exclusive>(other{}); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::unhandled_event);
  EXPECT_EQ(r.bug->message,
            "monitor exclusive in state 'watching' received event other, which that state neither handles nor ignores");
}

// --- liveness --------------------------------------------------------------------

struct request {};
struct response {};
struct answered : heddle::monitor {
  answered() {
    state("idle").cold().on_goto<request>("waiting").ignore<response>();
    state("waiting").hot().on_goto<response>("idle").ignore<request>();
    start_in("idle");
  }
};

// A thread asks; another answers, unless `forgetful`, when it may forget.
void ask_and_answer(bool forgetful) {
  heddle::notify<answered>(request{});
  heddle::thread t([forgetful] {
    if (forgetful && heddle::choose_bool()) return;
    heddle::notify<answered>(response{});
  });
  t.join();
}

TEST(monitors, a_monitor_hot_when_every_operation_finished_is_a_liveness_bug) {
  auto r = heddle::explore(quiet({.iterations = 100}), [] { ask_and_answer(true); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::liveness);
  EXPECT_EQ(r.bug->message,
            "monitor answered was in hot state 'waiting' at the end of the iteration: every operation finished or waits "
            "for an event, so nothing will cool it");
  EXPECT_TRUE(has(r.bug->where.file, "monitor_test.cpp")) << r.bug->where.file;  // where it turned hot
  EXPECT_TRUE(has(r.report, "monitor answered goes idle -> waiting on request (hot)")) << r.report;
  auto fixed = heddle::explore(quiet({.iterations = 100}), [] { ask_and_answer(false); });
  EXPECT_TRUE(fixed) << fixed.report;
}

// The same with tasks: a detached task answers, or, when forgetful, may not.
heddle::task<void> answer_task(bool forgetful) {
  co_await heddle::yield();
  if (forgetful && heddle::choose_bool()) co_return;
  heddle::notify<answered>(response{});
}

TEST(monitors, a_monitor_hot_when_every_task_finished_is_a_liveness_bug) {
  for (bool forgetful : {true, false}) {
    auto r = heddle::explore(quiet({.iterations = 100}), [forgetful] {
      heddle::notify<answered>(request{});
      heddle::detach(answer_task(forgetful), "answer");
    });
    if (!forgetful) {
      EXPECT_TRUE(r) << r.report;
      continue;
    }
    ASSERT_TRUE(r.bug);
    EXPECT_EQ(r.bug->kind, heddle::bug_kind::liveness);
    EXPECT_EQ(r.bug->message,
              "monitor answered was in hot state 'waiting' at the end of the iteration: every operation finished or "
              "waits for an event, so nothing will cool it");
  }
}

// The same with actors: only idle actors left at the end (quiescence).
struct question {
  heddle::actor_id from;
};
struct lazy_server : heddle::actor {
  explicit lazy_server(bool forgetful) : forgetful_(forgetful) {
    on<question>([this](const question&) {
      if (forgetful_ && random_bool()) return;  // the bug: a request dropped
      heddle::notify<answered>(response{});
    });
  }
  bool forgetful_;
};

TEST(monitors, a_monitor_hot_when_only_idle_actors_are_left_is_a_liveness_bug) {
  for (bool forgetful : {true, false}) {
    auto r = heddle::explore(quiet({.iterations = 100}), [forgetful] {
      auto s = heddle::create<lazy_server>(forgetful);
      heddle::notify<answered>(request{});
      heddle::send(s, question{});
    });
    if (!forgetful) {
      EXPECT_TRUE(r) << r.report;
      continue;
    }
    ASSERT_TRUE(r.bug);
    EXPECT_EQ(r.bug->kind, heddle::bug_kind::liveness);
    EXPECT_TRUE(has(r.bug->message, "at the end of the iteration")) << r.bug->message;
  }
}

// A system that never ends by itself: a periodic timer keeps the server busy
// until max_steps. Its monitor keeps the threshold the test gives (0: the
// default), so that a large one leaves only the max_steps rule.
struct patient_answered : heddle::monitor {
  explicit patient_answered(std::uint64_t threshold) {
    state("idle").cold().on_goto<request>("waiting").ignore<response>();
    state("waiting").hot().on_goto<response>("idle").ignore<request>();
    start_in("idle");
    set_temperature_threshold(threshold);
  }
};
struct patient_server : heddle::actor {
  explicit patient_server(bool answers) : answers_(answers) {
    on<question>([this] {
      if (answers_) heddle::notify<patient_answered>(response{});
    });
    on<heddle::timer_elapsed>([] {});
  }
  void on_start() override { start_periodic_timer(1ms, 1ms); }
  bool answers_;
};

// A never-ending system where the request comes at once.
auto endless(bool answers, std::uint64_t threshold) {
  return [answers, threshold] {
    heddle::register_monitor<patient_answered>(threshold);
    auto s = heddle::create<patient_server>(answers);
    heddle::notify<patient_answered>(request{});
    heddle::send(s, question{});
  };
}

TEST(monitors, hot_at_a_max_steps_cut_after_a_fair_part_is_a_liveness_bug) {
  auto r = heddle::explore(quiet({.iterations = 20, .strategy = "fair(random,after=100)", .max_steps = 400}),
                           endless(false, 1'000'000));
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::liveness);
  EXPECT_EQ(r.bug->message,
            "monitor patient_answered was in hot state 'waiting' when max_steps (400) ended the iteration, after a fair "
            "part of the schedule");
  auto fixed = heddle::explore(quiet({.iterations = 20, .strategy = "fair(random,after=100)", .max_steps = 400}),
                               endless(true, 1'000'000));
  EXPECT_TRUE(fixed) << fixed.report;
  EXPECT_EQ(fixed.stats.max_steps_hits, 20u);
}

TEST(monitors, hot_at_a_max_steps_cut_without_a_fair_part_is_no_bug_unless_asked) {
  // random is not fair(S): starvation could have kept the monitor hot.
  auto r = heddle::explore(quiet({.iterations = 20, .strategy = "pct:3", .max_steps = 400}), endless(false, 1'000'000));
  EXPECT_TRUE(r) << r.report;
  auto always = heddle::explore(quiet({.iterations = 20, .strategy = "pct:3", .max_steps = 400}), [] {
    heddle::liveness_at_max_steps(heddle::max_steps_liveness::always);
    endless(false, 1'000'000)();
  });
  ASSERT_TRUE(always.bug);
  EXPECT_EQ(always.bug->message,
            "monitor patient_answered was in hot state 'waiting' when max_steps (400) ended the iteration");
  auto never = heddle::explore(quiet({.iterations = 20, .strategy = "fair(random,after=100)", .max_steps = 400}), [] {
    heddle::liveness_at_max_steps(heddle::max_steps_liveness::never);
    endless(false, 1'000'000)();
  });
  EXPECT_TRUE(never) << never.report;
}

TEST(monitors, temperature_past_the_threshold_in_the_fair_part_is_a_liveness_bug) {
  auto r = heddle::explore(quiet({.iterations = 20, .strategy = "fair(random,after=100)", .max_steps = 2000}),
                           endless(false, 300));
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::liveness);
  EXPECT_EQ(r.bug->message,
            "monitor patient_answered was in hot state 'waiting' for 300 steps of the fair part of the schedule (its "
            "temperature threshold): a fair scheduler did not cool it");
  EXPECT_EQ(r.bug->step, 400u);  // hot from the start; counted from step 100, the fair part's first
}

TEST(monitors, the_default_threshold_is_half_the_fair_part) {
  auto r = heddle::explore(quiet({.iterations = 5, .strategy = "fair(random,after=100)", .max_steps = 2100}),
                           endless(false, 0));
  ASSERT_TRUE(r.bug);
  EXPECT_TRUE(has(r.bug->message, "for 1000 steps of the fair part")) << r.bug->message;
  EXPECT_EQ(r.bug->step, 1100u);
}

TEST(monitors, unfair_steps_never_heat_a_monitor) {
  // 1,900 steps hot, but all of them under random alone (no fair part):
  // neither the temperature nor the cut reports it.
  auto r = heddle::explore(quiet({.iterations = 10, .strategy = "random", .max_steps = 2000}), endless(false, 300));
  EXPECT_TRUE(r) << r.report;
  // fair(S) whose budget outlasts the iteration: no fair part either.
  auto late = heddle::explore(quiet({.iterations = 10, .strategy = "fair(random,after=5000)", .max_steps = 2000}),
                              endless(false, 300));
  EXPECT_TRUE(late) << late.report;
}

TEST(monitors, a_monitor_that_cools_in_time_is_never_reported) {
  auto r = heddle::explore(quiet({.iterations = 20, .strategy = "fair(random,after=100)", .max_steps = 2000}),
                           endless(true, 300));
  EXPECT_TRUE(r) << r.report;
}

TEST(monitors, a_liveness_bug_at_the_end_replays_100_times_out_of_100) {
  found_and_replayed({.iterations = 100}, [] { ask_and_answer(true); }, "monitors.end_replay");
}

TEST(monitors, a_liveness_bug_by_temperature_replays_100_times_out_of_100) {
  const auto found = found_and_replayed({.iterations = 5, .strategy = "fair(random,after=100)", .max_steps = 1000},
                                        endless(false, 200), "monitors.temperature_replay");
  ASSERT_TRUE(found.bug);
  EXPECT_EQ(found.bug->kind, heddle::bug_kind::liveness);
}

TEST(monitors, a_liveness_bug_at_a_max_steps_cut_replays_100_times_out_of_100) {
  found_and_replayed({.iterations = 5, .strategy = "fair(random,after=100)", .max_steps = 400},
                     endless(false, 1'000'000), "monitors.cut_replay");
}

TEST(monitors, register_monitor_passes_constructor_arguments_once) {
  auto r = heddle::explore(quiet({.iterations = 1}), [] {
    heddle::register_monitor<patient_answered>(5);
    heddle::register_monitor<patient_answered>(6);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_TRUE(has(r.bug->message, "the iteration has that monitor already")) << r.bug->message;
}

}  // namespace
