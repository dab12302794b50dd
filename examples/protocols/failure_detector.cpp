// A heartbeat failure detector as heddle actors: a detector pings three
// nodes in rounds and declares failed a node that misses two rounds in a row
// (it is suspected after the first), in the style of Chandra and Toueg's
// unreliable failure detectors ("Unreliable Failure Detectors for Reliable
// Distributed Systems", JACM 1996) built from timeouts.
//
// A round pings the nodes, then ends when every pinged node answered or when
// the round's timer fires (a mock timer: the strategy picks when, so a slow
// answer can miss its round). At the end of a round, a pinged node that did
// not answer is suspected, or declared failed if it was suspected already.
// The first round pings every node; later rounds ping only the suspected
// ones, to confirm or clear the suspicion, and the detector finishes after a
// round that leaves nobody suspected. Nodes crash for good (crash-stop,
// heddle/actor_faults.hpp); a crash happens before a node handles a ping.
//
// Monitor (liveness): a crashed node is eventually declared failed. The
// runtime tells the monitor of each crash as it happens
// (heddle::faults::on_crash), the detector of each declaration; the monitor
// is hot while a crashed node is not declared. If the detector finishes with
// a crash undeclared, the monitor stays hot to the end of the iteration: a
// liveness bug.
//
// Seeded bug (a stale heartbeat clears a suspicion): the buggy detector takes
// any answer as a sign of life, even one to an earlier round's ping that
// arrives after that round timed out. A node that answered late and then
// crashed is cleared by its own stale answer, and never declared.
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "heddle/actor.hpp"
#include "heddle/actor_faults.hpp"
#include "heddle/monitor.hpp"
#include "heddle/state_machine.hpp"
#include "protocols.hpp"

namespace heddle_protocols {
namespace failure_detector {

using namespace std::chrono_literals;
using heddle::actor_id;

// --- messages -------------------------------------------------------------

struct start {};
struct ping {
  std::uint64_t round;
  actor_id detector;
};
struct pong {
  std::uint64_t round;  // the round of the ping it answers
  actor_id node;
};
struct round_timeout {
  std::uint64_t round;
};

// --- the monitor ------------------------------------------------------------

struct node_crashed {
  actor_id node;
};
struct node_declared {
  actor_id node;
};

// Liveness: every crashed node is eventually declared failed.
class crashes_detected : public heddle::monitor {
 public:
  crashes_detected() {
    state("all_detected").cold().on<node_crashed>(&crashes_detected::crashed).on<node_declared>(
        &crashes_detected::declared);
    state("crash_undetected").hot().on<node_crashed>(&crashes_detected::crashed).on<node_declared>(
        &crashes_detected::declared);
    start_in("all_detected");
  }

 private:
  void crashed(const node_crashed& c) {
    if (!declared_.contains(c.node)) undetected_.insert(c.node);  // declared while alive counts too
    settle();
  }
  void declared(const node_declared& d) {
    declared_.insert(d.node);
    undetected_.erase(d.node);
    settle();
  }
  void settle() {
    const std::string_view want = undetected_.empty() ? "all_detected" : "crash_undetected";
    if (current_state() != want) go_to(want);
  }
  std::set<actor_id> undetected_;  // crashed, not yet declared
  std::set<actor_id> declared_;
};

// --- the actors -------------------------------------------------------------

class node : public heddle::actor {
 public:
  node() {
    on<ping>([this](const ping& p) { send(p.detector, pong{p.round, id()}); });
  }
};

class detector : public heddle::state_machine {
 public:
  detector(bool bug, std::vector<actor_id> nodes) : bug_(bug), nodes_(std::move(nodes)) {
    state("idle").on<start>([this] { begin_round(); });
    state("probing").on<pong>(&detector::on_pong).on<round_timeout>([this](const round_timeout& t) {
      if (t.round == round_) end_round();  // else the timer of a round that ended early
    });
    state("finished").ignore<pong>().ignore<round_timeout>();
    start_in("idle");
  }

  std::uint64_t state_hash() const override {
    return ((round_ * 31u + answered_.size()) * 31u + suspected_.size()) * 31u + declared_.size();
  }

 private:
  void begin_round() {
    ++round_;
    answered_.clear();
    pinged_.clear();
    for (actor_id n : nodes_)
      if (!declared_.contains(n) && (round_ == 1 || suspected_.contains(n))) pinged_.insert(n);
    for (actor_id n : pinged_) send(n, ping{round_, id()});
    timer_ = start_timer(100ms, round_timeout{round_});
    if (current_state() != "probing") go_to("probing");
  }

  void on_pong(const pong& p) {
    // BUG: an answer to an earlier round's ping counts as an answer now.
    if (!bug_ && p.round != round_) return;  // a stale heartbeat says nothing about now
    if (!pinged_.contains(p.node)) return;
    answered_.insert(p.node);
    suspected_.erase(p.node);
    if (answered_.size() == pinged_.size()) {
      stop_timer(timer_);
      end_round();
    }
  }

  void end_round() {
    for (actor_id n : pinged_) {
      if (answered_.contains(n)) continue;
      if (suspected_.erase(n) != 0) {
        declared_.insert(n);
        heddle::notify<crashes_detected>(node_declared{n});
      } else {
        suspected_.insert(n);
      }
    }
    if (suspected_.empty()) go_to("finished");
    else begin_round();
  }

  const bool bug_;
  const std::vector<actor_id> nodes_;
  std::uint64_t round_ = 0;
  std::set<actor_id> pinged_;
  std::set<actor_id> answered_;
  std::set<actor_id> suspected_;
  std::set<actor_id> declared_;
  heddle::timer_id timer_;
};

void run(bool bug) {
  std::vector<actor_id> nodes;
  for (int i = 0; i < 3; ++i) nodes.push_back(heddle::create_named<node>("node"));
  heddle::faults::on_crash([](actor_id n) { heddle::notify<crashes_detected>(node_crashed{n}); });
  const actor_id d = heddle::create_named<detector>("detector", bug, nodes);
  for (actor_id n : nodes) heddle::faults::allow_crash(n, {.restart = false});
  heddle::send(d, start{});
}

void buggy() { run(true); }
void fixed() { run(false); }

}  // namespace failure_detector

protocol failure_detector_protocol() {
  return {.name = "failure_detector",
          .description = "an answer to an earlier round's ping clears the suspicion of a node that has crashed",
          .buggy = failure_detector::buggy,
          .fixed = failure_detector::fixed,
          .kind = heddle::bug_kind::liveness,
          .message = "crash_undetected",
          .iterations = 1000,
          .fixed_iterations = 5000,
          .max_steps = 5000,
          .nekara_share = 0.07};
}

}  // namespace heddle_protocols
