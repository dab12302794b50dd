// Actor timers: a one-shot timer fires once, a periodic one until stopped,
// on virtual time, and when it fires is the strategy's choice, so both orders
// of a timer against a message are explored.
#include <gtest/gtest.h>

#include <chrono>

#include "actor_test_support.hpp"
#include "heddle/actor.hpp"
#include "heddle/explore.hpp"

using namespace actor_tests;
using namespace std::chrono_literals;

namespace {

struct hello {};

struct one_shot : heddle::actor {
  explicit one_shot(int* fired) : fired_(fired) {
    on<heddle::timer_elapsed>([this](const heddle::timer_elapsed& t) {
      HEDDLE_ASSERT(t.timer == timer_);
      HEDDLE_ASSERT(heddle::now() >= 5'000'000'000);  // due in 5 s of virtual time
      ++*fired_;
      HEDDLE_ASSERT(*fired_ == 1);
    });
  }
  void on_start() override { timer_ = start_timer(5s); }
  int* fired_;
  heddle::timer_id timer_;
};

TEST(actor_timers, a_one_shot_timer_fires_once_on_virtual_time) {
  int fired = 0;
  auto r = heddle::explore(quiet({.iterations = 200}), [&] {
    fired = 0;
    heddle::create<one_shot>(&fired);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(fired, 1);  // in the last iteration, as in every other (asserted inside)
  EXPECT_EQ(r.stats.max_steps_hits, 0u);
}

struct ticker : heddle::actor {
  explicit ticker(int* ticks) : ticks_(ticks) {
    on<heddle::timer_elapsed>([this] {
      ++*ticks_;
      HEDDLE_ASSERT(*ticks_ <= 3);
      if (*ticks_ == 3) stop_timer(timer_);
    });
  }
  void on_start() override { timer_ = start_periodic_timer(1s, 2s); }
  int* ticks_;
  heddle::timer_id timer_;
};

TEST(actor_timers, a_periodic_timer_fires_until_it_is_stopped) {
  int ticks = 0;
  auto r = heddle::explore(quiet({.iterations = 200}), [&] {
    ticks = 0;
    heddle::create<ticker>(&ticks);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(ticks, 3);
  EXPECT_EQ(r.stats.max_steps_hits, 0u);  // the stopped timer's operation finished
}

// A custom event, and a periodic timer never has two events of its own
// queued: while its owner is busy (here, in a receive), it fires once and
// waits, so virtual time does not run on to a second due time.
struct beat {
  int n = 0;
};
struct busy_listener : heddle::actor {
  busy_listener() {
    on<beat>([this] {
      ++beats_;
      if (beats_ == 1) HEDDLE_ASSERT(heddle::now() < 1'000'000'000);
      if (beats_ == 4) halt();
    });
  }
  void on_start() override {
    start_periodic_timer(0s, 1s, beat{});
    (void)receive<hello>();
  }
  int beats_ = 0;
};

TEST(actor_timers, a_periodic_timer_delivers_its_own_event_one_at_a_time) {
  auto r = heddle::explore(quiet({.iterations = 300}), [] { heddle::send(heddle::create<busy_listener>(), hello{}); });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.max_steps_hits, 0u);  // the halt stopped the timer
}

// The timer's firing races with a message: each order is found.
struct racer : heddle::actor {
  explicit racer(bool timer_first_is_bug) : timer_first_is_bug_(timer_first_is_bug) {
    on<heddle::timer_elapsed>([this] {
      if (!got_hello_) HEDDLE_ASSERT_MSG(!timer_first_is_bug_, "the timer fired before hello");
    });
    on<hello>([this] {
      got_hello_ = true;
      HEDDLE_ASSERT_MSG(timer_first_is_bug_, "hello came before the timer");
    });
  }
  void on_start() override { start_timer(10s); }
  bool timer_first_is_bug_;
  bool got_hello_ = false;
};

TEST(actor_timers, the_strategy_fires_a_timer_before_or_after_a_message) {
  for (bool timer_first_is_bug : {true, false}) {
    auto r = heddle::explore(quiet({.iterations = 500}), [timer_first_is_bug] {
      auto a = heddle::create<racer>(timer_first_is_bug);
      heddle::send(a, hello{});
    });
    ASSERT_TRUE(r.bug) << timer_first_is_bug;
    EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
    EXPECT_EQ(r.bug->message, timer_first_is_bug ? "the timer fired before hello" : "hello came before the timer");
  }
}

TEST(actor_timers, a_timer_firing_is_noted_in_the_report) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    auto a = heddle::create<racer>(true);
    heddle::send(a, hello{});
  });
  ASSERT_TRUE(r.bug);
  EXPECT_TRUE(has(r.report, "timer 1 of racer(1) fires")) << r.report;
}

}  // namespace
