// heddle::state_machine: one test per rule of heddle/state_machine.hpp:
// entry and exit actions, goto (with an action), push and pop with inherited
// handlers, defer, ignore, the default handler, raise, halt, an unhandled
// event naming machine, state and event, misuse, and transitions in reports.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "actor_test_support.hpp"
#include "heddle/explore.hpp"
#include "heddle/state_machine.hpp"

using namespace actor_tests;

namespace {

struct go {};
struct back {};
struct work {
  int n = 0;
};
struct done {};
struct noise {};

// A log of what the machine did, checked at the end of its life.
using journal = std::vector<std::string>;

struct door : heddle::state_machine {
  explicit door(journal* log) : log_(log) {
    state("closed")
        .on_entry([this] { log_->push_back("enter closed"); })
        .on_exit([this] { log_->push_back("exit closed"); })
        .on_goto<go>("open", [this](const go&) { log_->push_back("action go"); })
        .ignore<noise>();
    state("open")
        .on_entry([this] { log_->push_back("enter open"); })
        .on_exit([this] { log_->push_back("exit open"); })
        .on<back>(&door::on_back);
    start_in("closed");
  }
  void on_back() {
    log_->push_back("handle back");
    go_to("closed");
  }
  journal* log_;
};

// Entry, exit and event actions may be member functions in every form: with
// the event or without, const, noexcept.
struct qualified_members : heddle::state_machine {
  explicit qualified_members(journal* log) : log_(log) {
    state("a").on_entry(&qualified_members::enter_a).on_exit(&qualified_members::leave_a).on<work>(
        &qualified_members::work_noexcept);
    state("b").on<work>(&qualified_members::work_const).on<done>(&qualified_members::done_noexcept);
    start_in("a");
  }
  void enter_a() noexcept { log_->push_back("enter a"); }
  void leave_a() const noexcept { log_->push_back("exit a"); }
  void work_noexcept(const work& w) noexcept {
    log_->push_back("work " + std::to_string(w.n));
    go_to("b");
  }
  void work_const(const work& w) const { log_->push_back("work in b " + std::to_string(w.n)); }
  void done_noexcept() noexcept { log_->push_back("done"); }
  journal* log_;
};

TEST(state_machine, member_actions_may_be_const_or_noexcept) {
  journal log;
  auto r = heddle::explore(quiet({.iterations = 1}), [&] {
    log.clear();
    auto m = heddle::create<qualified_members>(&log);
    heddle::send(m, work{1});
    heddle::send(m, work{2});
    heddle::send(m, done{});
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(log, (journal{"enter a", "work 1", "exit a", "work in b 2", "done"}));
}

TEST(state_machine, goto_runs_exit_then_the_action_then_entry) {
  journal log;
  auto r = heddle::explore(quiet({.iterations = 1}), [&] {
    log.clear();
    auto d = heddle::create<door>(&log);
    heddle::send(d, noise{});
    heddle::send(d, go{});
    heddle::send(d, back{});
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(log, (journal{"enter closed", "exit closed", "action go", "enter open", "handle back", "exit open",
                          "enter closed"}));
}

TEST(state_machine, ignore_drops_the_event_in_that_state_only) {
  auto r = heddle::explore(quiet({.iterations = 5}), [] {
    static journal log;
    auto d = heddle::create<door>(&log);
    heddle::send(d, go{});
    heddle::send(d, noise{});  // ignored in closed, not in open
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::unhandled_event);
  EXPECT_EQ(r.bug->message,
            "door(1) in state 'open' received event noise, which that state neither handles, defers nor ignores");
}

// defer: a deferred event stays queued, in order, until a state takes it.
struct batcher : heddle::state_machine {
  batcher() {
    state("waiting").defer<work>().on_goto<go>("working");
    state("working").on<work>([this](const work& w) {
      HEDDLE_ASSERT(w.n == next_);
      ++next_;
    });
    start_in("waiting");
  }
  int next_ = 0;
};

TEST(state_machine, deferred_events_wait_in_order_for_a_state_that_handles_them) {
  auto r = heddle::explore(quiet({.iterations = 200}), [] {
    auto b = heddle::create<batcher>();
    heddle::send(b, work{0});
    heddle::send(b, work{1});
    heddle::send(b, go{});  // dequeued past the deferred work
    heddle::send(b, work{2});
  });
  EXPECT_TRUE(r) << r.report;
}

struct eager : heddle::state_machine {  // the twin without defer: work in waiting is unhandled
  eager() {
    state("waiting").on_goto<go>("working");
    state("working").on<work>([] {});
    start_in("waiting");
  }
};

TEST(state_machine, without_defer_the_same_event_is_unhandled) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    auto b = heddle::create<eager>();
    heddle::send(b, work{0});
    heddle::send(b, go{});
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::unhandled_event);
  EXPECT_EQ(r.bug->message,
            "eager(1) in state 'waiting' received event work, which that state neither handles, defers nor ignores");
}

// push and pop: a pushed state inherits the handlers of the states below it,
// overrides them with its own, and pop resumes the state below without
// re-entering it.
struct stack_machine : heddle::state_machine {
  explicit stack_machine(journal* log) : log_(log) {
    state("base")
        .on_entry([this] { log_->push_back("enter base"); })
        .on<work>([this](const work& w) { log_->push_back("base work " + std::to_string(w.n)); })
        .on<noise>([this] { log_->push_back("base noise"); })
        .on_push<go>("top");
    state("top")
        .on_entry([this] { log_->push_back("enter top"); })
        .on_exit([this] { log_->push_back("exit top"); })
        .on<noise>([this] { log_->push_back("top noise"); })
        .on<back>([this] { pop(); });
    start_in("base");
  }
  journal* log_;
};

TEST(state_machine, push_inherits_handlers_and_pop_resumes_without_reentry) {
  journal log;
  auto r = heddle::explore(quiet({.iterations = 1}), [&] {
    log.clear();
    auto m = heddle::create<stack_machine>(&log);
    heddle::send(m, go{});
    heddle::send(m, work{1});  // inherited from base
    heddle::send(m, noise{});  // top's own
    heddle::send(m, back{});
    heddle::send(m, noise{});  // base's again
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(log, (journal{"enter base", "enter top", "base work 1", "top noise", "exit top", "base noise"}));
}

struct popper : heddle::state_machine {
  popper() {
    state("only").on<back>([this] { pop(); });
    start_in("only");
  }
};

TEST(state_machine, popping_the_last_state_is_misuse) {
  auto r = heddle::explore(quiet({.iterations = 1}), [] { heddle::send(heddle::create<popper>(), back{}); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message, "popper(1) pops its last state, only");
}

struct twice : heddle::state_machine {
  twice() {
    state("a").on<go>([this] {
      go_to("b");
      go_to("a");
    });
    state("b");
    start_in("a");
  }
};

TEST(state_machine, two_transitions_in_one_handler_are_misuse) {
  auto r = heddle::explore(quiet({.iterations = 1}), [] { heddle::send(heddle::create<twice>(), go{}); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::api_misuse);
  EXPECT_EQ(r.bug->message, "twice(1) requested two transitions in one handler (only one takes effect when it returns)");
}

TEST(state_machine, a_machine_without_a_start_state_is_misuse) {
  struct lost : heddle::state_machine {
    lost() { state("a"); }
  };
  auto r = heddle::explore(quiet({.iterations = 1}), [] { heddle::create<lost>(); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "lost(1) has no start state: call start_in(\"...\") in its constructor");
}

// The default handler runs when nothing can be dequeued, instead of idling.
struct poller : heddle::state_machine {
  poller() {
    state("polling").on_default([this] {
      if (++polls_ == 3) go_to("resting");
    });
    state("resting").on_entry([this] { HEDDLE_ASSERT(polls_ == 3); }).on<work>([] {});
    start_in("polling");
  }
  int polls_ = 0;
};

TEST(state_machine, the_default_handler_runs_while_nothing_can_be_dequeued) {
  auto r = heddle::explore(quiet({.iterations = 100}), [] {
    auto p = heddle::create<poller>();
    heddle::send(p, work{});  // if it comes first the machine takes it... in polling, unhandled
  });
  // work may arrive before the three polls: then polling has no handler for it.
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::unhandled_event);
  EXPECT_EQ(r.bug->message,
            "poller(1) in state 'polling' received event work, which that state neither handles, defers nor ignores");
  auto fixed = heddle::explore(quiet({.iterations = 100}), [] { heddle::create<poller>(); });
  EXPECT_TRUE(fixed) << fixed.report;
  EXPECT_EQ(fixed.stats.max_steps_hits, 0u);  // resting has no default handler: the machine goes idle
}

// raise: the raised event is handled before anything in the inbox.
struct raiser : heddle::state_machine {
  raiser() {
    state("s")
        .on<go>([this] { raise(work{1}); })
        .on<work>([this](const work& w) {
          HEDDLE_ASSERT(w.n == expected_);
          ++expected_;
        });
    start_in("s");
  }
  int expected_ = 1;
};

TEST(state_machine, a_raised_event_is_handled_before_the_inbox) {
  auto r = heddle::explore(quiet({.iterations = 50}), [] {
    auto m = heddle::create<raiser>();
    heddle::send(m, go{});
    heddle::send(m, work{2});
  });
  EXPECT_TRUE(r) << r.report;
}

struct stopping : heddle::state_machine {
  stopping() {
    state("s").on<done>([this] { halt(); }).on<work>([this] { ++handled_; HEDDLE_ASSERT(handled_ == 1); });
    start_in("s");
  }
  int handled_ = 0;
};

TEST(state_machine, a_halted_machine_handles_nothing_more) {
  auto r = heddle::explore(quiet({.iterations = 100}), [] {
    auto m = heddle::create<stopping>();
    heddle::send(m, work{});
    heddle::send(m, done{});
    heddle::send(m, work{});
    heddle::send(m, go{});  // unhandled, were it handled
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(state_machine, transitions_appear_in_the_report_and_the_trace_file) {
  const auto dir = scratch("transitions");
  auto r = heddle::explore({.iterations = 1, .print_report = false, .out = dir.string()}, [] {
    static journal log;
    auto d = heddle::create<door>(&log);
    heddle::send(d, go{});
    heddle::send(d, noise{});
  }, {"state_machine.transitions", ""});
  ASSERT_TRUE(r.bug);
  EXPECT_TRUE(has(r.report, "door(1) starts in closed")) << r.report;
  EXPECT_TRUE(has(r.report, "door(1) goes closed -> open on go")) << r.report;
  ASSERT_FALSE(r.trace_file.empty());
  std::ifstream in(r.trace_file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(has(text, "\"notes\"")) << text;
  EXPECT_TRUE(has(text, "door(1) goes closed -> open on go")) << text;
  std::filesystem::remove_all(dir);
}

}  // namespace
