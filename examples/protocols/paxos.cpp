// Single-decree Paxos (Lamport, "The Part-Time Parliament", TOCS 1998, and
// "Paxos Made Simple", 2001) as heddle actors: three proposers, three
// acceptors and a learner agree on one value.
//
// A proposer runs phase 1 (prepare, collect promises from a majority), then
// phase 2 with the value of the highest-numbered proposal any promise reports,
// or its own value when none does (accept, collect acceptances from a
// majority). Ballots are (round, proposer) pairs. The highest proposer is the
// distinguished proposer of "Paxos Made Simple", section 2.4: it retries with a
// higher round whenever an acceptor refuses it, which is what guarantees
// progress; the others retry once, give up at their second refusal and wait
// to hear the outcome from the learner. One acceptor may crash for good and replies may be duplicated
// (heddle/actor_faults.hpp): a majority of acceptors survives, and a proposer
// counts each acceptor once.
//
// Monitors: safety, only one value is ever chosen (a value is chosen when a
// majority of acceptors accepted it in one ballot); liveness, every proposer's
// client eventually hears which value was chosen.
//
// Seeded bug (an acceptor answers a prepare with the wrong previously accepted
// value): the buggy acceptor records the ballot of every proposal it accepts
// but keeps the value of the first, so a promise pairs its newest ballot with
// an older value. A later proposer then re-proposes a value that was not
// chosen in place of one that was.
#include <cstdint>
#include <map>
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
namespace paxos {

using heddle::actor_id;

// A proposal number: round first, then the proposer's rank, so no two
// proposers ever use the same ballot.
struct ballot {
  std::uint32_t round = 0;  // 0: no ballot
  std::uint32_t proposer = 0;
  explicit operator bool() const { return round != 0; }
  friend auto operator<=>(const ballot&, const ballot&) = default;
  std::string text() const { return std::to_string(round) + "." + std::to_string(proposer); }
};

// --- messages -------------------------------------------------------------

struct start {};
struct prepare {
  ballot b;
  actor_id proposer;
};
struct promise {
  ballot b;
  actor_id acceptor;
  ballot accepted;  // the highest-numbered proposal it accepted, if any
  int value;        // and that proposal's value
};
struct accept_request {
  ballot b;
  int value;
  actor_id proposer;
};
struct accepted {
  ballot b;
  int value;
  actor_id acceptor;
};
struct refused {  // a prepare or accept below what the acceptor promised
  ballot b;
  ballot promised;
};
struct decided {
  int value;
};

// --- monitors -------------------------------------------------------------

struct value_accepted {
  actor_id acceptor;
  ballot b;
  int value;
};
struct proposal_made {
  actor_id proposer;
};
struct outcome_heard {
  actor_id proposer;
};

constexpr std::size_t acceptor_count = 3;
constexpr std::size_t majority = acceptor_count / 2 + 1;

// Safety: only a single value is chosen. The monitor sees every acceptance
// as it happens, so it judges what acceptors did, not what they report.
class one_value_chosen : public heddle::monitor {
 public:
  one_value_chosen() {
    state("watching").on<value_accepted>([this](const value_accepted& a) {
      auto& votes = accepted_[a.b];
      votes.insert(a.acceptor);
      if (votes.size() != majority) return;
      if (!chosen_) {
        chosen_ = a.b;
        value_ = a.value;
        return;
      }
      check(a.value == value_, "two values chosen: " + std::to_string(value_) + " in ballot " + chosen_.text() +
                                   ", then " + std::to_string(a.value) + " in ballot " + a.b.text());
    });
    start_in("watching");
  }

 private:
  std::map<ballot, std::set<actor_id>> accepted_;  // acceptors per ballot (one value per ballot)
  ballot chosen_;
  int value_ = 0;
};

// Liveness: every proposer's client eventually hears the outcome.
class outcome_reaches_every_proposer : public heddle::monitor {
 public:
  outcome_reaches_every_proposer() {
    state("settled").cold().on<proposal_made>(&outcome_reaches_every_proposer::made).ignore<outcome_heard>();
    state("waiting").hot().on<proposal_made>(&outcome_reaches_every_proposer::made).on<outcome_heard>(
        [this](const outcome_heard& h) {
          waiting_.erase(h.proposer);
          if (waiting_.empty()) go_to("settled");
        });
    start_in("settled");
  }

 private:
  void made(const proposal_made& p) {
    waiting_.insert(p.proposer);
    if (current_state() != "waiting") go_to("waiting");
  }
  std::set<actor_id> waiting_;
};

// --- the acceptor ---------------------------------------------------------

class acceptor : public heddle::actor {
 public:
  acceptor(bool bug, actor_id learner) : bug_(bug), learner_(learner) {
    on<prepare>([this](const prepare& p) {
      if (p.b <= promised_) {
        send(p.proposer, refused{p.b, promised_});
        return;
      }
      promised_ = p.b;
      send(p.proposer, promise{p.b, id(), accepted_, value_});
    });
    on<accept_request>([this](const accept_request& a) {
      if (a.b < promised_) {
        send(a.proposer, refused{a.b, promised_});
        return;
      }
      promised_ = a.b;
      // BUG: the value of the first proposal accepted is kept with the
      // ballot of the newest, so later promises report a stale value.
      if (!bug_ || !accepted_) value_ = a.value;
      accepted_ = a.b;
      heddle::notify<one_value_chosen>(value_accepted{id(), a.b, a.value});
      send(a.proposer, accepted{a.b, a.value, id()});
      send(learner_, accepted{a.b, a.value, id()});
    });
  }

  std::uint64_t state_hash() const override {
    return ((promised_.round * 31u + promised_.proposer) * 31u + accepted_.round) * 31u + accepted_.proposer +
           static_cast<std::uint64_t>(value_) * 7919u;
  }

 private:
  const bool bug_;
  const actor_id learner_;
  ballot promised_;
  ballot accepted_;
  int value_ = 0;
};

// --- the learner ------------------------------------------------------------

// Learns the value once a majority accepted one ballot, and tells every
// proposer (the ones that gave up wait for this).
class learner : public heddle::actor {
 public:
  explicit learner(std::shared_ptr<std::vector<actor_id>> proposers) : proposers_(std::move(proposers)) {
    on<accepted>([this](const accepted& a) {
      auto& votes = votes_[a.b];
      votes.insert(a.acceptor);
      if (learned_ || votes.size() < majority) return;
      learned_ = true;
      for (actor_id p : *proposers_) send(p, decided{a.value});
    });
  }

 private:
  std::shared_ptr<std::vector<actor_id>> proposers_;
  std::map<ballot, std::set<actor_id>> votes_;
  bool learned_ = false;
};

// --- the proposer -----------------------------------------------------------

class proposer : public heddle::state_machine {
 public:
  proposer(std::uint32_t rank, int value, bool distinguished, std::shared_ptr<std::vector<actor_id>> acceptors)
      : rank_(rank), value_(value), distinguished_(distinguished), acceptors_(std::move(acceptors)) {
    state("idle").on_goto<start>("preparing").defer<decided>();
    state("preparing")
        .on_entry(&proposer::send_prepare)
        .on<promise>(&proposer::on_promise)
        .on<refused>(&proposer::on_refused)
        .on<decided>(&proposer::hear)
        .ignore<accepted>();
    state("accepting")
        .on_entry(&proposer::send_accept)
        .on<accepted>(&proposer::on_accepted)
        .on<refused>(&proposer::on_refused)
        .on<decided>(&proposer::hear)
        .ignore<promise>();
    // Given up (a refusal) or decided: only the outcome still matters.
    state("waiting").on<decided>(&proposer::hear).ignore<promise>().ignore<accepted>().ignore<refused>();
    start_in("idle");
  }

  std::uint64_t state_hash() const override {
    return (((ballot_.round * 31u + promises_.size()) * 31u + acceptances_.size()) * 31u + heard_) * 31u +
           static_cast<std::uint64_t>(proposed_);
  }

 private:
  void send_prepare() {
    if (round_ == 0) heddle::notify<outcome_reaches_every_proposer>(proposal_made{id()});
    ballot_ = {++round_, rank_};
    promises_.clear();
    highest_ = {};
    for (actor_id a : *acceptors_) send(a, prepare{ballot_, id()});
  }

  void on_promise(const promise& p) {
    if (p.b != ballot_) return;
    promises_.insert(p.acceptor);
    if (p.accepted && p.accepted > highest_) {
      highest_ = p.accepted;
      highest_value_ = p.value;
    }
    if (promises_.size() == majority) go_to("accepting");
  }

  void send_accept() {
    proposed_ = highest_ ? highest_value_ : value_;
    acceptances_.clear();
    for (actor_id a : *acceptors_) send(a, accept_request{ballot_, proposed_, id()});
  }

  void on_accepted(const accepted& a) {
    if (a.b != ballot_) return;
    acceptances_.insert(a.acceptor);
    if (acceptances_.size() == majority) {
      hear(decided{proposed_});
      go_to("waiting");
    }
  }

  void on_refused(const refused& r) {
    if (r.b != ballot_) return;
    if (!distinguished_ && round_ >= 2) {  // a second refusal: leave it to the distinguished one
      go_to("waiting");
      return;
    }
    round_ = std::max(round_, r.promised.round);  // the next prepare outbids what was promised
    go_to("preparing");
  }

  void hear(const decided&) {
    if (heard_) return;
    heard_ = true;
    heddle::notify<outcome_reaches_every_proposer>(outcome_heard{id()});
  }

  const std::uint32_t rank_;
  const int value_;
  const bool distinguished_;
  std::shared_ptr<std::vector<actor_id>> acceptors_;
  std::uint32_t round_ = 0;
  ballot ballot_;
  std::set<actor_id> promises_;
  ballot highest_;  // the highest accepted proposal the promises report
  int highest_value_ = 0;
  int proposed_ = 0;
  std::set<actor_id> acceptances_;
  bool heard_ = false;
};

void run(bool bug) {
  auto acceptors = std::make_shared<std::vector<actor_id>>();
  auto proposers = std::make_shared<std::vector<actor_id>>();
  const actor_id l = heddle::create_named<learner>("learner", proposers);
  for (std::size_t i = 0; i < acceptor_count; ++i) acceptors->push_back(heddle::create_named<acceptor>("acceptor", bug, l));
  for (std::uint32_t rank = 1; rank <= 3; ++rank)
    proposers->push_back(heddle::create_named<proposer>("proposer", rank, static_cast<int>(rank), rank == 3, acceptors));
  // Failures Paxos survives: one acceptor of three crashes for good, and an
  // acceptor's replies may arrive twice.
  heddle::faults::allow_crash(acceptors->back(), {.restart = false});
  for (actor_id a : *acceptors)
    for (actor_id p : *proposers) heddle::faults::set_link(a, p, {.duplicate = true});
  for (actor_id p : *proposers) heddle::send(p, start{});
}

void buggy() { run(true); }
void fixed() { run(false); }

}  // namespace paxos

protocol paxos_protocol() {
  return {.name = "paxos",
          .description = "an acceptor answers a prepare with the value of its first acceptance, not its newest",
          .buggy = paxos::buggy,
          .fixed = paxos::fixed,
          .kind = heddle::bug_kind::assertion,
          .message = "two values chosen",
          .iterations = 2000,
          .fixed_iterations = 3000,
          .max_steps = 5000,
          .nekara_share = 0.06};
}

}  // namespace heddle_protocols
