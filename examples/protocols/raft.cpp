// Raft leader election and log replication (Ongaro and Ousterhout, "In Search
// of an Understandable Consensus Algorithm", USENIX ATC 2014), as heddle state
// machines: three servers, each a follower, candidate or leader, and a client
// that has two commands committed.
//
// The rules are the paper's Figure 2. Persistent state (current term, the
// vote, the log) survives a crash-restart; volatile state (role, commit index,
// votes received, answers owed to the client) does not, and a leader's
// next and match indices are rebuilt when it next wins. Election and
// heartbeat timeouts are mock timers: when they fire is the strategy's choice.
// Servers crash and restart, and messages between servers are lost,
// duplicated or delayed (heddle/actor_faults.hpp), so the twins are tested
// under the failures Raft is built to survive.
//
// Monitors: election safety (at most one leader per term, §5.2), state
// machine safety (no two servers apply different commands at one index,
// §5.4.3), and the client's liveness (every command is eventually answered).
//
// Seeded bug (a vote granted twice in one term): the buggy follower treats a
// vote request of its own term as a new term, forgets whom it voted for and
// votes again, so two candidates of one term can each collect a majority.
// Figure 2: "If RPC request or response contains term T > currentTerm: set
// currentTerm = T, convert to follower"; the bug writes >= for >.
#include <chrono>
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
namespace raft {

using namespace std::chrono_literals;
using heddle::actor_id;

struct log_entry {
  std::uint64_t term = 0;
  int command = 0;
};

// --- messages -------------------------------------------------------------

struct start {};
struct vote_request {
  std::uint64_t term;
  actor_id candidate;
  std::uint64_t last_log_index;
  std::uint64_t last_log_term;
};
struct vote_reply {
  std::uint64_t term;
  actor_id voter;
  bool granted;
};
struct append_entries {
  std::uint64_t term;
  actor_id leader;
  std::uint64_t prev_index;
  std::uint64_t prev_term;
  std::vector<log_entry> entries;
  std::uint64_t leader_commit;
};
struct append_reply {
  std::uint64_t term;
  actor_id follower;
  bool success;
  std::uint64_t match_index;  // with success: the follower's log matches up to here
};
struct client_request {
  actor_id client;
  int command;
};
struct client_reply {
  int command;
  bool committed;      // false: not the leader
  actor_id leader;     // a hint where to retry, when known
};
struct election_tick {};
struct heartbeat_due {};
struct retry_due {};
struct shutdown {};
struct restarted {};

// --- monitors -------------------------------------------------------------

// What monitors are told.
struct leader_elected {
  std::uint64_t term;
  actor_id leader;
};
struct entry_applied {
  actor_id server;
  std::uint64_t index;
  int command;
};
struct command_sent {
  int command;
};
struct command_answered {
  int command;
};

// Election safety (§5.2): at most one leader can be elected in a given term.
class election_safety : public heddle::monitor {
 public:
  election_safety() {
    state("watching").on<leader_elected>([this](const leader_elected& e) {
      const auto [it, first] = leaders_.emplace(e.term, e.leader);
      check(first || it->second == e.leader, "two leaders in term " + std::to_string(e.term) + ": " +
                                                 it->second.name() + " and " + e.leader.name());
    });
    start_in("watching");
  }

 private:
  std::map<std::uint64_t, actor_id> leaders_;
};

// State machine safety (§5.4.3): if a server has applied a log entry at a
// given index, no other server ever applies a different one there.
class state_machine_safety : public heddle::monitor {
 public:
  state_machine_safety() {
    state("watching").on<entry_applied>([this](const entry_applied& e) {
      const auto [it, first] = applied_.emplace(e.index, e);
      check(first || it->second.command == e.command,
            e.server.name() + " applied command " + std::to_string(e.command) + " at index " +
                std::to_string(e.index) + " where " + it->second.server.name() + " applied command " +
                std::to_string(it->second.command));
    });
    start_in("watching");
  }

 private:
  std::map<std::uint64_t, entry_applied> applied_;
};

// Liveness: every command the client sends is eventually answered.
class command_answered_monitor : public heddle::monitor {
 public:
  command_answered_monitor() {
    state("idle").cold().on_goto<command_sent>("waiting").ignore<command_answered>();
    state("waiting").hot().on_goto<command_answered>("idle").ignore<command_sent>();
    start_in("idle");
  }
};

// --- the server -----------------------------------------------------------

// Who is in the cluster, filled by the test body before any actor starts
// (each actor waits for `start`), and whether the run is over: set by the
// client once every command is answered, the environment's word that a
// server which missed the shutdown (it was down) reads at its next timeout.
struct cluster {
  std::vector<actor_id> servers;
  bool over = false;
};
using shared_cluster = std::shared_ptr<cluster>;

enum class role : std::uint8_t { init, follower, candidate, leader };

class server : public heddle::state_machine {
 public:
  server(bool bug, shared_cluster cluster) : bug_(bug), cluster_(std::move(cluster)) {
    // Until `start`, everything but a shutdown waits (other servers may have
    // started already and asked for votes).
    state("init")
        .on<start>([this] {
          start_ticking();
          become(role::follower);
        })
        .on<restarted>([this] { become(role::follower); })
        .defer<election_tick>()
        .defer<vote_request>()
        .defer<vote_reply>()
        .defer<append_entries>()
        .defer<append_reply>()
        .defer<client_request>()
        .on<shutdown>([this] { halt(); });
    for (const char* name : {"follower", "candidate", "leader"}) {
      state(name)
          .on<vote_request>(&server::on_vote_request)
          .on<vote_reply>(&server::on_vote_reply)
          .on<append_entries>(&server::on_append_entries)
          .on<append_reply>(&server::on_append_reply)
          .on<client_request>(&server::on_client_request)
          .on<election_tick>(&server::on_election_tick)
          .on<heartbeat_due>(&server::on_heartbeat)
          .on<restarted>([this] { become(role::follower); })
          .on<shutdown>([this] { halt(); });
    }

    state("candidate").on_entry(&server::start_election);
    state("leader").on_entry(&server::become_leader).on_exit([this] { stop_timer(heartbeat_); });
    start_in("init");
  }

  std::uint64_t state_hash() const override {
    std::uint64_t h = term_ * 1000003u + voted_for_.value();
    h = h * 1000003u + log_.size();
    h = h * 1000003u + commit_index_;
    return h * 1000003u + votes_.size();
  }

 protected:
  // A crash loses the volatile state; the term, the vote and the log are on disk.
  void on_restart() override {
    if (cluster_->over) {
      halt();
      return;
    }
    commit_index_ = 0;
    votes_.clear();
    pending_.clear();
    leader_ = {};
    silent_ticks_ = 0;
    start_ticking();  // the crash stopped the timers
    // A restarted server is a follower. The runtime keeps a state machine in
    // its state at a restart, so the change of role is an event of its own,
    // the first in the (emptied) inbox; init takes it too, as the crash lost
    // `start` with the inbox.
    send(id(), restarted{});
  }

 private:
  std::uint64_t last_index() const { return log_.size(); }
  std::uint64_t term_at(std::uint64_t index) const { return index == 0 ? 0 : log_[index - 1].term; }
  std::size_t majority() const { return cluster_->servers.size() / 2 + 1; }
  // Doubled by each election this server started since it last heard a
  // leader (exponential backoff): a strategy that keeps choosing one server
  // and its timer cannot keep it starting elections too fast for any vote to
  // arrive.
  std::uint32_t timeout_ticks() const {
    std::uint32_t rank = 0;
    while (cluster_->servers[rank] != id()) ++rank;
    return (2 + rank) << std::min<std::uint32_t>(elections_, 8);
  }

  // The role changes at once; the state machine follows when the handler
  // returns (one transition per handler: a second change of role in one
  // handler only updates the target).
  void become(role r) {
    if (r == role_) return;
    role_ = r;
    go_to(r == role::follower ? "follower" : r == role::candidate ? "candidate" : "leader");
  }

  // The election timeout as a ticker: a follower or candidate that heard
  // nothing from a leader (and granted no vote) for timeout_ticks_ ticks in a
  // row starts an election. One periodic timer per server, not one timer per
  // reset. The servers' timeouts differ (2, 3 and 4 ticks), as Raft
  // randomizes them (§5.2): a mock timer fires whenever the strategy likes, so
  // a timeout of one tick would restart elections faster than a vote travels.
  void start_ticking() { election_ = start_periodic_timer(150ms, 150ms, election_tick{}); }
  void heard_from_leader() { silent_ticks_ = 0; }
  void heard_from_current_leader() {
    silent_ticks_ = 0;
    elections_ = 0;
  }

  // Figure 2, all servers: a message of a newer term makes this server a
  // follower of that term, with no vote cast in it yet.
  bool adopt_newer_term(std::uint64_t term) {
    if (term <= term_) return false;
    term_ = term;
    voted_for_ = {};
    leader_ = {};
    become(role::follower);
    return true;
  }

  void on_vote_request(const vote_request& r) {
    if (bug_ && role_ == role::follower && r.term == term_ && r.candidate != voted_for_) {
      // BUG: a follower takes a request of its current term for a new term,
      // so the vote it already cast in this term is forgotten.
      voted_for_ = {};
    } else {
      adopt_newer_term(r.term);
    }
    // §5.4.1: vote only for a candidate whose log is at least as up to date.
    const bool up_to_date = r.last_log_term > term_at(last_index()) ||
                            (r.last_log_term == term_at(last_index()) && r.last_log_index >= last_index());
    const bool grant = r.term == term_ && (!voted_for_ || voted_for_ == r.candidate) && up_to_date;
    if (grant) {
      voted_for_ = r.candidate;
      heard_from_leader();
    }
    send(r.candidate, vote_reply{term_, id(), grant});
  }

  void on_vote_reply(const vote_reply& r) {
    if (adopt_newer_term(r.term)) return;
    if (role_ != role::candidate || r.term != term_ || !r.granted) return;
    votes_.insert(r.voter);  // a set: a vote that arrives twice counts once
    if (votes_.size() >= majority()) become(role::leader);
  }

  void on_append_entries(const append_entries& a) {
    adopt_newer_term(a.term);
    if (a.term < term_) {
      send(a.leader, append_reply{term_, id(), false, 0});
      return;
    }
    // A leader of this term exists: a candidate steps down.
    if (role_ == role::candidate) become(role::follower);
    leader_ = a.leader;
    heard_from_current_leader();
    if (a.prev_index > last_index() || term_at(a.prev_index) != a.prev_term) {
      send(a.leader, append_reply{term_, id(), false, 0});
      return;
    }
    std::uint64_t index = a.prev_index;
    for (const log_entry& e : a.entries) {
      ++index;
      if (index <= last_index() && term_at(index) != e.term) log_.resize(index - 1);  // a conflict
      if (index > last_index()) log_.push_back(e);
    }
    if (a.leader_commit > commit_index_) apply_up_to(std::min(a.leader_commit, index));
    send(a.leader, append_reply{term_, id(), true, index});
  }

  void on_append_reply(const append_reply& r) {
    if (adopt_newer_term(r.term)) return;
    if (role_ != role::leader || r.term != term_) return;
    if (r.success) {
      match_index_[r.follower] = std::max(match_index_[r.follower], r.match_index);
      next_index_[r.follower] = match_index_[r.follower] + 1;
      advance_commit();
    } else {
      std::uint64_t& next = next_index_[r.follower];
      if (next > 1) --next;
      replicate_to(r.follower);
    }
  }

  void on_client_request(const client_request& r) {
    if (role_ != role::leader) {
      send(r.client, client_reply{r.command, false, leader_});
      return;
    }
    log_.push_back({term_, r.command});
    pending_[last_index()] = r.client;
    for (actor_id s : cluster_->servers)
      if (s != id()) replicate_to(s);
  }

  void on_election_tick(const election_tick&) {
    if (cluster_->over) {
      halt();
      return;
    }
    if (role_ == role::leader) return;
    if (++silent_ticks_ < timeout_ticks()) return;
    silent_ticks_ = 0;
    if (role_ == role::candidate) go_to("candidate");  // a split vote: a new election
    else become(role::candidate);
  }

  void on_heartbeat(const heartbeat_due&) {
    if (cluster_->over) {
      halt();
      return;
    }
    if (role_ != role::leader) return;
    for (actor_id s : cluster_->servers)
      if (s != id()) replicate_to(s);
  }

  void start_election() {
    ++term_;
    voted_for_ = id();
    votes_ = {id()};
    leader_ = {};
    silent_ticks_ = 0;
    ++elections_;
    for (actor_id s : cluster_->servers)
      if (s != id()) send(s, vote_request{term_, id(), last_index(), term_at(last_index())});
  }

  void become_leader() {
    heddle::notify<election_safety>(leader_elected{term_, id()});
    leader_ = id();
    next_index_.clear();
    match_index_.clear();
    for (actor_id s : cluster_->servers)
      if (s != id()) {
        next_index_[s] = last_index() + 1;
        match_index_[s] = 0;
        replicate_to(s);
      }
    heartbeat_ = start_periodic_timer(50ms, 50ms, heartbeat_due{});
  }

  // AppendEntries with everything from the follower's next index (empty: a heartbeat).
  void replicate_to(actor_id follower) {
    const std::uint64_t next = next_index_[follower];
    append_entries a{term_, id(), next - 1, term_at(next - 1), {}, commit_index_};
    a.entries.assign(log_.begin() + static_cast<std::ptrdiff_t>(next - 1), log_.end());
    send(follower, std::move(a));
  }

  // §5.3, §5.4.2: an entry of the current term stored on a majority is
  // committed, and with it every entry before it.
  void advance_commit() {
    for (std::uint64_t n = last_index(); n > commit_index_; --n) {
      if (term_at(n) != term_) break;
      std::size_t stored = 1;
      for (const auto& [s, m] : match_index_)
        if (m >= n) ++stored;
      if (stored >= majority()) {
        apply_up_to(n);
        return;
      }
    }
  }

  void apply_up_to(std::uint64_t index) {
    while (commit_index_ < index) {
      ++commit_index_;
      const log_entry& e = log_[commit_index_ - 1];
      heddle::notify<state_machine_safety>(entry_applied{id(), commit_index_, e.command});
      if (auto it = pending_.find(commit_index_); it != pending_.end()) {
        send(it->second, client_reply{e.command, true, id()});
        pending_.erase(it);
      }
    }
  }

  const bool bug_;
  shared_cluster cluster_;
  role role_ = role::init;  // the state the machine is in, or goes to when the handler returns
  // Persistent (Figure 2).
  std::uint64_t term_ = 0;
  actor_id voted_for_;
  std::vector<log_entry> log_;  // index i is log_[i - 1]
  // Volatile.
  std::uint64_t commit_index_ = 0;
  actor_id leader_;
  std::set<actor_id> votes_;
  std::map<actor_id, std::uint64_t> next_index_;
  std::map<actor_id, std::uint64_t> match_index_;
  std::map<std::uint64_t, actor_id> pending_;  // log index -> client to answer when committed
  heddle::timer_id election_;
  heddle::timer_id heartbeat_;
  std::uint32_t silent_ticks_ = 0;  // election ticks since a leader was heard or a vote granted
  std::uint32_t elections_ = 0;     // started since a leader was last heard
};

// --- the client -----------------------------------------------------------

// Sends its commands one at a time, each until a leader answers that it is
// committed: to the leader a server names, else to the next server when two
// ticks of its retry timer pass without an answer. When every command is
// answered, the run is over.
class client : public heddle::actor {
 public:
  client(std::vector<int> commands, shared_cluster cluster)
      : commands_(std::move(commands)), cluster_(std::move(cluster)) {
    on<start>([this] {
      heddle::notify<command_answered_monitor>(command_sent{commands_[next_]});
      submit();
      retry_ = start_periodic_timer(200ms, 200ms, retry_due{});
    });
    on<client_reply>([this](const client_reply& r) { on_reply(r); });
    on<retry_due>([this] {
      if (++quiet_ticks_ < 2) return;
      target_ = (target_ + 1) % cluster_->servers.size();
      submit();
    });
  }

 private:
  void on_reply(const client_reply& r) {
    if (r.command != commands_[next_]) return;  // a late answer to an earlier try
    if (!r.committed) {
      if (r.leader) {  // retry at once where the server says the leader is
        for (std::size_t i = 0; i < cluster_->servers.size(); ++i)
          if (cluster_->servers[i] == r.leader) target_ = i;
        submit();
      }
      return;  // else the retry timer moves on
    }
    heddle::notify<command_answered_monitor>(command_answered{r.command});
    if (++next_ == commands_.size()) {
      cluster_->over = true;
      for (actor_id s : cluster_->servers) send(s, shutdown{});
      halt();  // stops the retry timer
      return;
    }
    heddle::notify<command_answered_monitor>(command_sent{commands_[next_]});
    submit();
  }

  void submit() {
    quiet_ticks_ = 0;
    send(cluster_->servers[target_], client_request{id(), commands_[next_]});
  }

  std::vector<int> commands_;
  shared_cluster cluster_;
  std::size_t next_ = 0;
  std::size_t target_ = 0;
  std::uint32_t quiet_ticks_ = 0;
  heddle::timer_id retry_;
};

void run(bool bug) {
  auto cl = std::make_shared<cluster>();
  std::vector<actor_id> servers;
  for (int i = 0; i < 3; ++i) servers.push_back(heddle::create_named<server>("server", bug, cl));
  const actor_id c = heddle::create_named<client>("client", std::vector<int>{10, 20}, cl);
  cl->servers = servers;
  // Failures Raft survives: lost and duplicated messages between servers, and
  // a server that crashes and restarts from its persistent state.
  for (actor_id a : servers) {
    for (actor_id b : servers)
      if (a != b) heddle::faults::set_link(a, b, {.drop = true, .duplicate = true, .delay = true});
    heddle::faults::allow_crash(a, {.restart = true, .keep_state = true});
  }
  for (actor_id s : servers) heddle::send(s, start{});
  heddle::send(c, start{});
}

void buggy() { run(true); }
void fixed() { run(false); }

}  // namespace raft

protocol raft_protocol() {
  return {.name = "raft",
          .description = "a follower forgets its vote on a vote request of its own term and votes twice",
          .buggy = raft::buggy,
          .fixed = raft::fixed,
          .kind = heddle::bug_kind::assertion,
          .message = "two leaders in term",
          .iterations = 300,
          .fixed_iterations = 500,
          .max_steps = 5000,
          .nekara_share = 0.38};
}

}  // namespace heddle_protocols
