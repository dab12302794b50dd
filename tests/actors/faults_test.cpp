// Failure injection: each kind (drop, duplicate, delay, crash with state lost
// or kept, crash-stop, partition) finds the bug it exposes, is off by default
// (the same test passes without it), respects the budget, and replays.
#include <gtest/gtest.h>

#include <string>

#include "actor_test_support.hpp"
#include "heddle/actor.hpp"
#include "heddle/actor_faults.hpp"
#include "heddle/explore.hpp"
#include "heddle/monitor.hpp"
#include "heddle/state_machine.hpp"

using namespace actor_tests;

namespace {

struct item {
  int n = 0;
};
struct end {};

// Expects items 0, 1, 2 exactly once and in order, then end.
struct strict_receiver : heddle::actor {
  strict_receiver() {
    on<item>([this](const item& i) {
      HEDDLE_ASSERT_MSG(i.n == next_, "item " + std::to_string(i.n) + " where " + std::to_string(next_) + " was due");
      ++next_;
    });
    on<end>([this] { HEDDLE_ASSERT_MSG(next_ == 3, "only " + std::to_string(next_) + " items arrived"); });
  }
  int next_ = 0;
};

struct sender : heddle::actor {
  explicit sender(heddle::actor_id to) : to_(to) {}
  void on_start() override {
    for (int i = 0; i < 3; ++i) send(to_, item{i});
    send(to_, end{});
  }
  heddle::actor_id to_;
};

// The system under test; `faults` switches some on for the iteration.
template <class F>
auto with_link_faults(F faults) {
  return [faults] {
    auto r = heddle::create<strict_receiver>();
    auto s = heddle::create<sender>(r);
    faults(s, r);
  };
}

TEST(actor_faults, every_fault_is_off_by_default) {
  auto r = heddle::explore(quiet({.iterations = 500}), with_link_faults([](heddle::actor_id, heddle::actor_id) {}));
  EXPECT_TRUE(r) << r.report;
}

TEST(actor_faults, a_dropped_message_is_found) {
  auto r = heddle::explore(quiet({.iterations = 500}), with_link_faults([](heddle::actor_id from, heddle::actor_id to) {
    heddle::faults::set_link(from, to, {.drop = true});
  }));
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_TRUE(has(r.bug->message, " where ") || has(r.bug->message, " items arrived")) << r.bug->message;
  EXPECT_TRUE(has(r.report, "is dropped")) << r.report;
}

TEST(actor_faults, link_options_apply_to_their_direction_only) {
  auto r = heddle::explore(quiet({.iterations = 500}), with_link_faults([](heddle::actor_id from, heddle::actor_id to) {
    heddle::faults::set_link(to, from, {.drop = true, .duplicate = true, .delay = true});  // the other way
  }));
  EXPECT_TRUE(r) << r.report;
}

TEST(actor_faults, a_duplicated_message_is_found) {
  auto r = heddle::explore(quiet({.iterations = 500}), with_link_faults([](heddle::actor_id from, heddle::actor_id to) {
    heddle::faults::set_link(from, to, {.duplicate = true});
  }));
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  // A duplicate of item k arrives where k + 1 was due (a duplicated end finds nothing wrong).
  EXPECT_TRUE(has(r.bug->message, " was due")) << r.bug->message;
  EXPECT_TRUE(has(r.report, "is duplicated")) << r.report;
}

TEST(actor_faults, a_delayed_message_can_be_overtaken) {
  auto r = heddle::explore(quiet({.iterations = 1000}), with_link_faults([](heddle::actor_id from, heddle::actor_id to) {
    heddle::faults::set_links({.delay = true});  // every link
    (void)from;
    (void)to;
  }));
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_TRUE(has(r.report, "is delayed")) << r.report;
}

TEST(actor_faults, a_budget_of_zero_injects_nothing) {
  auto r = heddle::explore(quiet({.iterations = 300}), with_link_faults([](heddle::actor_id from, heddle::actor_id to) {
    heddle::faults::set_link(from, to, {.drop = true, .duplicate = true, .delay = true});
    heddle::faults::set_budget(0);
  }));
  EXPECT_TRUE(r) << r.report;
}

// A partition loses everything after it starts, `end` too, so the receiver
// never complains: a liveness monitor says what is missing.
struct all_delivered : heddle::monitor {
  all_delivered() {
    state("waiting").hot().on_goto<end>("done");
    state("done").cold();
    start_in("waiting");
  }
};
struct reporting_receiver : strict_receiver {
  reporting_receiver() {
    on<end>([] { heddle::notify<all_delivered>(end{}); });
  }
};

TEST(actor_faults, a_partition_loses_the_messages_across_it) {
  for (bool partitioned : {true, false}) {
    auto r = heddle::explore(quiet({.iterations = 500}), [partitioned] {
      heddle::register_monitor<all_delivered>();
      auto to = heddle::create<reporting_receiver>();
      auto from = heddle::create<sender>(to);
      if (partitioned) heddle::faults::allow_partition({from}, {to}, {.heal = false});
    });
    if (!partitioned) {
      EXPECT_TRUE(r) << r.report;
      continue;
    }
    ASSERT_TRUE(r.bug);
    EXPECT_EQ(r.bug->kind, heddle::bug_kind::liveness);
    EXPECT_TRUE(has(r.bug->message, "monitor all_delivered was in hot state 'waiting' at the end")) << r.bug->message;
    EXPECT_TRUE(has(r.report, "a network partition begins")) << r.report;
    EXPECT_TRUE(has(r.report, "is lost in the partition")) << r.report;
  }
}

TEST(actor_faults, a_partition_between_other_actors_changes_nothing) {
  auto r = heddle::explore(quiet({.iterations = 300}), with_link_faults([](heddle::actor_id from, heddle::actor_id) {
    heddle::faults::allow_partition({from}, {heddle::actor_id(99)});
  }));
  EXPECT_TRUE(r) << r.report;
}

// Crashes.
struct phoenix : heddle::actor {
  explicit phoenix(bool keeps_state) : keeps_state_(keeps_state) {
    on<item>([this] { ++value_; });
  }
  void on_start() override {
    HEDDLE_ASSERT_MSG(!started_before(), "started again: its state was lost");
  }
  void on_restart() override {
    // The same object: value_ still counts every item handled before the crash.
    const bool kept = value_ == static_cast<int>(heddle::counts(id()).handled) - 1;  // - on_start
    HEDDLE_ASSERT_MSG(false, kept ? "restarted with its state kept" : "restarted with its state lost");
  }
  // Whether another phoenix object of this iteration started before this one.
  bool started_before() {
    const bool before = heddle::counts(id()).crashes > 0;
    return before;
  }
  bool keeps_state_;  // what the test allowed (for the reader: the check does not need it)
  int value_ = 0;
};

TEST(actor_faults, a_crash_that_loses_state_starts_the_actor_afresh) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    auto p = heddle::create<phoenix>(false);
    heddle::faults::allow_crash(p, {.restart = true, .keep_state = false});
    for (int i = 0; i < 3; ++i) heddle::send(p, item{i});
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "started again: its state was lost");
  EXPECT_TRUE(has(r.report, "phoenix(1) crashes (restarts afresh)")) << r.report;
}

TEST(actor_faults, a_crash_that_keeps_state_restarts_the_same_object) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    auto p = heddle::create<phoenix>(true);
    heddle::faults::allow_crash(p, {.restart = true, .keep_state = true});
    for (int i = 0; i < 3; ++i) heddle::send(p, item{i});
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "restarted with its state kept");
}

// A state machine that restarts with its state may move in on_restart, as
// from a handler: the transition happens before its next event.
struct recovering_machine : heddle::state_machine {
  recovering_machine() {
    state("serving").on<item>([] {});
    state("recovering").on<item>([] { HEDDLE_ASSERT_MSG(false, "an item handled while recovering"); });
    start_in("serving");
  }
  void on_restart() override { go_to("recovering"); }
};

TEST(actor_faults, a_state_machine_moves_in_on_restart_before_its_next_event) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    auto m = heddle::create<recovering_machine>();
    heddle::faults::allow_crash(m, {.restart = true, .keep_state = true});
    for (int i = 0; i < 3; ++i) heddle::send(m, item{i});
  });
  ASSERT_TRUE(r.bug) << r.report;
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "an item handled while recovering");
  EXPECT_TRUE(has(r.report, "recovering_machine(1) goes serving -> recovering on restart")) << r.report;
}

TEST(actor_faults, a_crash_stop_actor_stays_down_and_observers_hear_of_it) {
  auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    auto p = heddle::create<phoenix>(false);
    heddle::faults::allow_crash(p, {.restart = false});
    heddle::faults::on_crash([](heddle::actor_id id) {
      HEDDLE_ASSERT_MSG(false, "crashed: " + id.name());
    });
    for (int i = 0; i < 3; ++i) heddle::send(p, item{i});
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "crashed: phoenix(1)");
}

TEST(actor_faults, without_allow_crash_no_actor_crashes) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    auto p = heddle::create<phoenix>(false);
    heddle::faults::on_crash([](heddle::actor_id) { HEDDLE_ASSERT_MSG(false, "crashed"); });
    for (int i = 0; i < 3; ++i) heddle::send(p, item{i});
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(actor_faults, a_bug_found_by_a_dropped_message_replays_100_times_out_of_100) {
  found_and_replayed({.iterations = 500}, with_link_faults([](heddle::actor_id from, heddle::actor_id to) {
    heddle::faults::set_link(from, to, {.drop = true});
  }), "actor_faults.drop_replay");
}

TEST(actor_faults, a_bug_found_by_a_crash_replays_100_times_out_of_100) {
  found_and_replayed({.iterations = 1000}, [] {
    auto p = heddle::create<phoenix>(false);
    heddle::faults::allow_crash(p, {.restart = true});
    for (int i = 0; i < 3; ++i) heddle::send(p, item{i});
  }, "actor_faults.crash_replay");
}

}  // namespace
