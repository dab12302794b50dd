// heddle::actor: create, send, one handler per dequeue, FIFO per pair,
// receive inside a handler, halt, ids that print with a name, unhandled
// events, quiescence versus deadlock, and the state fingerprint.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <vector>

#include "actor_test_support.hpp"
#include "heddle/actor.hpp"
#include "heddle/explore.hpp"

using namespace actor_tests;

namespace {

struct ping {
  heddle::actor_id from;
  int n = 0;
};
struct pong {
  int n = 0;
};
struct stop {};

struct echo : heddle::actor {
  echo() {
    on<ping>([this](const ping& p) { send(p.from, pong{p.n}); });
  }
};

struct client : heddle::actor {
  client(heddle::actor_id server, int rounds) : server_(server), rounds_(rounds) {
    on<pong>([this](const pong& p) {
      HEDDLE_ASSERT(p.n == next_);
      if (++next_ == rounds_) halt();
      else send(server_, ping{id(), next_});
    });
  }
  void on_start() override { send(server_, ping{id(), 0}); }
  heddle::actor_id server_;
  int rounds_;
  int next_ = 0;
};

TEST(actors, ping_pong_runs_every_round_and_ends_quiescent) {
  auto r = heddle::explore(quiet({.iterations = 300}), [] {
    auto server = heddle::create<echo>();
    auto c = heddle::create<client>(server, 5);
    (void)c;
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 300u);
  EXPECT_EQ(r.stats.max_steps_hits, 0u);  // idle actors end the iteration: no max_steps cut
}

// Handlers may be member functions of the actor, with the event or without,
// const or noexcept: every form a C++ user writes compiles and runs.
struct member_handlers : heddle::actor {
  explicit member_handlers(std::vector<std::string>* log) : log_(log) {
    on<ping>(&member_handlers::with_event);
    on<pong>(&member_handlers::without_event);
    on<stop>(&member_handlers::noexcept_without_event);
    on<int>(&member_handlers::const_noexcept_with_event);
  }
  void with_event(const ping& p) { log_->push_back("ping " + std::to_string(p.n)); }
  void without_event() { log_->push_back("pong"); }
  void noexcept_without_event() noexcept { log_->push_back("stop"); }
  void const_noexcept_with_event(const int& n) const noexcept { log_->push_back("int " + std::to_string(n)); }
  std::vector<std::string>* log_;
};

TEST(actors, member_function_handlers_with_or_without_the_event_run) {
  std::vector<std::string> log;
  auto r = heddle::explore(quiet({.iterations = 1}), [&] {
    log.clear();
    auto a = heddle::create<member_handlers>(&log);
    heddle::send(a, ping{{}, 7});
    heddle::send(a, pong{});
    heddle::send(a, stop{});
    heddle::send(a, 3);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(log, (std::vector<std::string>{"ping 7", "pong", "stop", "int 3"}));
}

TEST(actors, ids_print_with_the_class_name_or_the_given_name) {
  std::string a, b, c;
  auto r = heddle::explore(quiet({.iterations = 1}), [&] {
    auto s = heddle::create<echo>();
    auto n = heddle::create_named<echo>("leader");
    std::ostringstream out;
    out << n;
    a = s.name();
    b = out.str();
    c = heddle::to_string(heddle::actor_id{});
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(a, "echo(1)");
  EXPECT_EQ(b, "leader(2)");
  EXPECT_EQ(c, "none");
}

// Two senders, one receiver: each sender's events arrive in the order sent,
// however the sends interleave.
struct numbered {
  int sender;
  int n;
};
struct sink : heddle::actor {
  sink() {
    on<numbered>([this](const numbered& e) {
      HEDDLE_ASSERT(e.n == next_[e.sender]);
      ++next_[e.sender];
    });
  }
  std::map<int, int> next_;
};
struct source : heddle::actor {
  source(heddle::actor_id to, int me) : to_(to), me_(me) {}
  void on_start() override {
    for (int i = 0; i < 4; ++i) send(to_, numbered{me_, i});
  }
  heddle::actor_id to_;
  int me_;
};

TEST(actors, events_from_one_sender_to_one_receiver_stay_in_order) {
  auto r = heddle::explore(quiet({.iterations = 2000, .strategy = "random"}), [] {
    auto s = heddle::create<sink>();
    heddle::create<source>(s, 1);
    heddle::create<source>(s, 2);
    for (int i = 0; i < 3; ++i) heddle::send(s, numbered{0, i});  // the test body is a sender too
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(r.stats.distinct_schedules, 50u);  // the sends did interleave
}

// Two senders' events do interleave at the receiver: a test that assumes an
// order between different senders fails.
struct first_wins : heddle::actor {
  first_wins() {
    on<numbered>([this](const numbered& e) {
      if (first_ == 0) first_ = e.sender;
      HEDDLE_ASSERT(first_ == 1);
    });
  }
  int first_ = 0;
};

TEST(actors, events_of_different_senders_interleave_both_ways) {
  auto r = heddle::explore(quiet({.iterations = 2000}), [] {
    auto s = heddle::create<first_wins>();
    heddle::create<source>(s, 1);
    heddle::create<source>(s, 2);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: first_ == 1");
}

// receive<E>() inside a handler: waits for an E while other events stay queued.
struct request {
  heddle::actor_id from;
};
struct reply {
  int value;
};
struct other {};
struct asker : heddle::actor {
  explicit asker(heddle::actor_id server) : server_(server) {
    on<other>([this] { HEDDLE_ASSERT(got_ == 7); ++others_; });
  }
  void on_start() override {
    send(id(), other{});  // queued before the reply
    send(server_, request{id()});
    got_ = receive<reply>().value;  // skips `other`, which stays queued
    HEDDLE_ASSERT(others_ == 0);
  }
  heddle::actor_id server_;
  int got_ = 0;
  int others_ = 0;
};
struct answerer : heddle::actor {
  answerer() {
    on<request>([this](const request& r) { send(r.from, reply{7}); });
  }
};

TEST(actors, receive_takes_the_awaited_event_and_leaves_the_others_queued) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    auto s = heddle::create<answerer>();
    heddle::create<asker>(s);
  });
  EXPECT_TRUE(r) << r.report;
}

struct picky : heddle::actor {
  void on_start() override {
    send(id(), reply{1});
    send(id(), reply{2});
    send(id(), pong{3});
    const reply second = receive<reply>([](const reply& r) { return r.value == 2; });
    HEDDLE_ASSERT(second.value == 2);
    auto any = receive_any<pong, reply>();
    HEDDLE_ASSERT(std::holds_alternative<reply>(any) && std::get<reply>(any).value == 1);
    auto last = receive_any<pong, reply>();
    HEDDLE_ASSERT(std::holds_alternative<pong>(last));
  }
};

TEST(actors, receive_with_a_predicate_and_receive_any_take_the_first_match) {
  auto r = heddle::explore(quiet({.iterations = 50}), [] { heddle::create<picky>(); });
  EXPECT_TRUE(r) << r.report;
}

TEST(actors, a_receive_nothing_will_satisfy_is_a_deadlock) {
  struct waiter : heddle::actor {
    void on_start() override { (void)receive<reply>(); }
  };
  auto r = heddle::explore(quiet({.iterations = 10}), [] { heddle::create<waiter>(); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_TRUE(has(r.bug->message, "(waiter(1)) waits for inbox #")) << r.bug->message;
}

// halt: the actor stops after the handler; later events are dropped.
struct halter : heddle::actor {
  halter() {
    on<stop>([this] { halt(); });
    on<ping>([this] { ++pings_; HEDDLE_ASSERT(pings_ <= 1); });
  }
  void on_halt() override { halted_ = true; }
  int pings_ = 0;
  bool halted_ = false;
};

TEST(actors, a_halted_actor_drops_what_is_sent_to_it) {
  auto r = heddle::explore(quiet({.iterations = 500}), [] {
    auto h = heddle::create<halter>();
    heddle::send(h, ping{});
    heddle::send(h, stop{});
    heddle::send(h, ping{});  // after stop: never handled
    heddle::send(h, ping{});
  });
  EXPECT_TRUE(r) << r.report;
}

struct never_answered : heddle::actor {
  never_answered() {
    on<pong>([] { HEDDLE_ASSERT_MSG(false, "a halted echo answered"); });
  }
};

TEST(actors, halt_event_halts_an_actor_that_does_not_handle_it) {
  auto r = heddle::explore(quiet({.iterations = 300}), [] {
    auto e = heddle::create<echo>();
    auto probe = heddle::create<never_answered>();
    heddle::send(e, heddle::halt_event{});
    heddle::send(e, ping{probe, 0});  // after the halt (FIFO from the test body): dropped
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(actors, without_the_halt_the_probe_sees_the_answer) {  // the twin: the probe can fail
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    auto e = heddle::create<echo>();
    auto probe = heddle::create<never_answered>();
    heddle::send(e, ping{probe, 0});
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "a halted echo answered");
}

TEST(actors, an_unhandled_event_names_the_actor_and_the_event) {
  auto r = heddle::explore(quiet({.iterations = 10}), [] {
    auto e = heddle::create<echo>();
    heddle::send(e, pong{});
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::unhandled_event);
  EXPECT_EQ(r.bug->message, "echo(1) received event pong, which it does not handle");
  EXPECT_EQ(r.bug->operation_name, "echo(1)");
}

TEST(actors, an_unhandled_event_replays_100_times_out_of_100) {
  const auto found = found_and_replayed({.iterations = 100}, [] {
    auto e = heddle::create<echo>();
    heddle::send(e, ping{e, 0});  // echo answers itself a pong it does not handle
  }, "actors.unhandled_replay");
  ASSERT_TRUE(found.bug);
  EXPECT_EQ(found.bug->kind, heddle::bug_kind::unhandled_event);
}

TEST(actors, send_and_receive_are_scheduling_points_on_the_inbox) {
  auto r = heddle::explore(quiet({.iterations = 1}), [] {
    auto e = heddle::create<echo>();
    heddle::send(e, pong{});  // unhandled: the report shows the points
  });
  ASSERT_TRUE(r.bug);
  bool send = false, receive = false;
  for (const auto& s : r.trace.steps) {
    send = send || s.point == heddle::point_kind::send;
    receive = receive || s.point == heddle::point_kind::receive;
  }
  EXPECT_TRUE(send);
  EXPECT_TRUE(receive);
  EXPECT_TRUE(has(r.report, "inbox #")) << r.report;
}

struct tally : heddle::actor {
  tally() {
    on<numbered>([] {});
    on<stop>([this] {
      HEDDLE_ASSERT(heddle::counts(id()).handled == 4);  // on_start and three events; this one counts after it
      HEDDLE_ASSERT(heddle::counts(heddle::actor_id{}).sent == 4);
      HEDDLE_ASSERT(!heddle::halted(id()));
    });
  }
};

TEST(actors, counts_say_what_each_actor_sent_and_handled) {
  auto r = heddle::explore(quiet({.iterations = 50}), [] {
    auto t = heddle::create<tally>();
    for (int i = 0; i < 3; ++i) heddle::send(t, numbered{0, i});
    heddle::send(t, stop{});
  });
  EXPECT_TRUE(r) << r.report;
}

// The fingerprint: actors' state hashes reach heddle::state_hash, so end
// states differ when the actors' states do.
struct counter : heddle::actor {
  counter() {
    on<numbered>([this](const numbered& e) { last_ = e.sender; });
  }
  std::uint64_t state_hash() const override { return static_cast<std::uint64_t>(last_); }
  int last_ = 0;
};

TEST(actors, actor_state_hashes_tell_end_states_apart) {
  auto r = heddle::explore(quiet({.iterations = 400, .strategy = "random"}), [] {
    auto c = heddle::create<counter>();
    heddle::create<source>(c, 1);
    heddle::create<source>(c, 2);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.distinct_end_states, 2u);  // the last event came from source 1 or from source 2
}

TEST(actors, create_outside_an_iteration_is_misuse) {
  EXPECT_DEATH((void)heddle::create<echo>(), "actors and monitors run only under heddle's control");
}

}  // namespace
