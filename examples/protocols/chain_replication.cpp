// Chain replication (van Renesse and Schneider, "Chain Replication for
// Supporting High Throughput and Availability", OSDI 2004) as heddle actors:
// a chain of three servers (head, middle, tail) holds a replicated key-value
// store, and two clients each write a value and read it back.
//
// As in the paper: a write goes to the head, which orders it (a sequence
// number) and sends it down the chain; each server applies it and passes it
// on, keeping it in its Sent list until the acknowledgement from the tail
// comes back up. The tail answers the client. Reads go to the tail, so a read
// sees exactly the writes the tail has answered. The tail makes its writes
// durable in groups: it buffers them and applies the buffer when its flush
// timer fires (a mock timer, so the strategy picks when).
//
// Failures: the middle server and the tail crash and restart with their
// durable state (the store, the Sent list) and lose their inbox and the tail's
// unflushed buffer. A restarted server asks its predecessor to send its Sent
// list again, which is how the paper's chain recovers the updates in flight
// (section 3, "Failure of a Middle Server"); servers drop an update they
// already have, or one past a gap (the resend brings the gap's updates first).
// A restarted tail tells the clients, as the paper's master tells them of a
// change of the chain, and a client sends its unanswered read again, since the
// crash may have lost it.
//
// Monitors: linearizable reads (a read returns a write at least as new as
// every write acknowledged before the read was sent: acknowledged writes are
// visible and durable), and liveness (every request is eventually answered).
//
// Seeded bug (a tail that acknowledges before applying): the buggy tail
// answers the client and acknowledges up the chain when a write arrives, not
// when it has applied it. A read that comes before the flush sees the old
// value, and a crash before the flush loses an acknowledged write, which no
// Sent list holds any more.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "heddle/actor.hpp"
#include "heddle/actor_faults.hpp"
#include "heddle/monitor.hpp"
#include "protocols.hpp"

namespace heddle_protocols {
namespace chain_replication {

using namespace std::chrono_literals;
using heddle::actor_id;

// --- messages -------------------------------------------------------------

struct start {};
struct write_request {
  actor_id client;
  int request;
  int key;
  int value;
};
struct read_request {
  actor_id client;
  int request;
  int key;
};
struct update {  // a write on its way down the chain
  std::uint64_t seq;
  int key;
  int value;
  actor_id client;
  int request;
};
struct ack {  // up the chain: every update up to seq is applied at the tail
  std::uint64_t seq;
};
struct resend_request {};  // from a restarted successor: send the Sent list again
struct write_reply {
  int request;
  std::uint64_t seq;
};
struct read_reply {
  int request;
  std::uint64_t seq;  // the version read (0: never written)
  int value;
};
struct flush_due {};
struct tail_restarted {};

// --- monitors -------------------------------------------------------------

struct write_acknowledged {  // a client received the tail's answer
  std::uint64_t seq;
  int value;
};
struct read_sent {
  actor_id client;
  int request;
};
struct read_answered {
  actor_id client;
  int request;
  std::uint64_t seq;
  int value;
};
struct request_sent {};
struct request_answered {};

// Linearizable reads of the single key the clients share: a read returns a
// version no older than the newest one acknowledged to any client before the
// read was sent (writes are totally ordered by the head's sequence numbers).
class linearizable_reads : public heddle::monitor {
 public:
  linearizable_reads() {
    state("watching")
        .on<write_acknowledged>([this](const write_acknowledged& w) {
          if (w.seq > acknowledged_) acknowledged_ = w.seq;
        })
        .on<read_sent>([this](const read_sent& r) { floor_.emplace(std::pair{r.client, r.request}, acknowledged_); })
        .on<read_answered>([this](const read_answered& r) {
          const std::uint64_t floor = floor_.at({r.client, r.request});
          check(r.seq >= floor, "a read by " + r.client.name() + " returned version " + std::to_string(r.seq) +
                                    " (value " + std::to_string(r.value) + "), but version " +
                                    std::to_string(floor) + " had been acknowledged before the read was sent");
        });
    start_in("watching");
  }

 private:
  std::uint64_t acknowledged_ = 0;  // the newest acknowledged version
  std::map<std::pair<actor_id, int>, std::uint64_t> floor_;  // per read: the newest acknowledged when sent
};

// Liveness: every request is eventually answered.
class requests_answered : public heddle::monitor {
 public:
  requests_answered() {
    state("idle").cold().on<request_sent>(&requests_answered::sent);
    state("waiting").hot().on<request_sent>(&requests_answered::sent).on<request_answered>([this] {
      if (--outstanding_ == 0) go_to("idle");
    });
    start_in("idle");
  }

 private:
  void sent(const request_sent&) {
    if (outstanding_++ == 0) go_to("waiting");
  }
  int outstanding_ = 0;
};

// --- the servers ------------------------------------------------------------

// Who is where, filled by the test body before anyone starts.
struct cluster {
  std::vector<actor_id> servers;  // head first
  std::vector<actor_id> clients;
};
using shared_cluster = std::shared_ptr<cluster>;

class server : public heddle::actor {
 public:
  server(bool bug, std::size_t position, shared_cluster c) : bug_(bug), position_(position), cluster_(std::move(c)) {
    on<write_request>([this](const write_request& w) {  // the head
      const update u{++next_seq_, w.key, w.value, w.client, w.request};
      receive_update(u);
    });
    on<update>([this](const update& u) {
      if (u.seq != received_ + 1) return;  // a duplicate from a resend, or past a gap the resend fills
      receive_update(u);
    });
    on<ack>([this](const ack& a) {
      while (!sent_.empty() && sent_.front().seq <= a.seq) sent_.pop_front();
      if (!is_head()) send(predecessor(), a);
    });
    on<resend_request>([this] {
      for (const update& u : sent_) send(successor(), u);
    });
    on<flush_due>([this] { flush(); });
    on<read_request>([this](const read_request& r) {  // the tail
      const auto it = store_.find(r.key);
      send(r.client, it == store_.end() ? read_reply{r.request, 0, 0}
                                        : read_reply{r.request, it->second.seq, it->second.value});
    });
  }

  std::uint64_t state_hash() const override {
    return ((received_ * 131u + applied_) * 131u + sent_.size()) * 131u + pending_.size();
  }

 protected:
  // A crash loses the inbox and the unflushed buffer; the store, the Sent
  // list and the sequence numbers are durable.
  void on_restart() override {
    pending_.clear();
    received_ = applied_;
    flush_timer_ = {};
    if (!is_head()) send(predecessor(), resend_request{});
    // The successor may have lost updates while this server was down (its
    // own request for them was dropped then).
    if (!is_tail())
      for (const update& u : sent_) send(successor(), u);
    else
      for (actor_id c : cluster_->clients) send(c, tail_restarted{});
  }

 private:
  bool is_head() const { return position_ == 0; }
  bool is_tail() const { return position_ + 1 == cluster_->servers.size(); }
  actor_id predecessor() const { return cluster_->servers[position_ - 1]; }
  actor_id successor() const { return cluster_->servers[position_ + 1]; }

  void receive_update(const update& u) {
    received_ = u.seq;
    if (!is_tail()) {
      apply(u);
      sent_.push_back(u);
      send(successor(), u);
      return;
    }
    pending_.push_back(u);
    if (bug_) acknowledge(u);  // BUG: acknowledged before it is applied
    if (!flush_timer_) flush_timer_ = start_timer(10ms, flush_due{});
  }

  void flush() {
    flush_timer_ = {};
    for (const update& u : pending_) {
      apply(u);
      if (!bug_) acknowledge(u);
    }
    pending_.clear();
  }

  void acknowledge(const update& u) {
    send(u.client, write_reply{u.request, u.seq});
    send(predecessor(), ack{u.seq});
  }

  void apply(const update& u) {
    store_[u.key] = {u.seq, u.value};
    applied_ = u.seq;
  }

  struct version {
    std::uint64_t seq;
    int value;
  };
  const bool bug_;
  const std::size_t position_;
  shared_cluster cluster_;
  // Durable.
  std::map<int, version> store_;
  std::uint64_t applied_ = 0;   // the newest update in the store
  std::uint64_t next_seq_ = 0;  // the head's counter
  std::deque<update> sent_;     // passed on, not yet acknowledged by the tail
  // Volatile.
  std::uint64_t received_ = 0;  // the newest update received (applied or buffered)
  std::vector<update> pending_;  // the tail's buffer, applied at the next flush
  heddle::timer_id flush_timer_;
};

// --- the clients ------------------------------------------------------------

// Writes its value, then reads the key back from the tail (again if the
// tail restarts before answering).
class client : public heddle::actor {
 public:
  client(int value, shared_cluster c) : value_(value), cluster_(std::move(c)) {
    on<start>([this] {
      heddle::notify<requests_answered>(request_sent{});
      send(cluster_->servers.front(), write_request{id(), 1, 0, value_});
    });
    on<write_reply>([this](const write_reply& w) {
      heddle::notify<linearizable_reads>(write_acknowledged{w.seq, value_});
      heddle::notify<requests_answered>(request_answered{});
      heddle::notify<requests_answered>(request_sent{});
      heddle::notify<linearizable_reads>(read_sent{id(), 2});
      reading_ = true;
      send_read();
    });
    on<read_reply>([this](const read_reply& r) {
      if (!reading_) return;  // the answer to a read sent again without need
      reading_ = false;
      heddle::notify<linearizable_reads>(read_answered{id(), r.request, r.seq, r.value});
      heddle::notify<requests_answered>(request_answered{});
      halt();
    });
    on<tail_restarted>([this] {
      if (reading_) send_read();
    });
  }

 private:
  void send_read() { send(cluster_->servers.back(), read_request{id(), 2, 0}); }
  const int value_;
  shared_cluster cluster_;
  bool reading_ = false;
};

void run(bool bug) {
  auto c = std::make_shared<cluster>();
  for (std::size_t i = 0; i < 3; ++i)
    c->servers.push_back(heddle::create_named<server>(i == 0 ? "head" : i == 1 ? "middle" : "tail", bug, i, c));
  const actor_id a = heddle::create_named<client>("client", 11, c);
  const actor_id b = heddle::create_named<client>("client", 22, c);
  c->clients = {a, b};
  // The middle server and the tail crash and restart from their durable state.
  heddle::faults::allow_crash(c->servers[1], {.restart = true, .keep_state = true});
  heddle::faults::allow_crash(c->servers[2], {.restart = true, .keep_state = true});
  heddle::send(a, start{});
  heddle::send(b, start{});
}

void buggy() { run(true); }
void fixed() { run(false); }

}  // namespace chain_replication

protocol chain_replication_protocol() {
  return {.name = "chain_replication",
          .description = "the tail acknowledges a write when it arrives, before applying it",
          .buggy = chain_replication::buggy,
          .fixed = chain_replication::fixed,
          .kind = heddle::bug_kind::assertion,
          .message = "had been acknowledged before the read was sent",
          .iterations = 100,
          .fixed_iterations = 3000,
          .max_steps = 5000,
          .nekara_share = 0.01};
}

}  // namespace heddle_protocols
