// The protocol suite (issue 18): four distributed protocols written from their
// papers as heddle actors, each with a bug from the literature and its fixed
// twin, judged by safety and liveness monitors (docs/actors.md, "Protocol suite").
//
//   chain_replication  van Renesse and Schneider, OSDI 2004: the tail
//                      acknowledges a write before applying it
//   failure_detector   a ping/pong heartbeat detector: a stale heartbeat clears
//                      a suspicion
//   paxos              Lamport's single-decree Paxos: an acceptor answers a
//                      prepare with the wrong previously accepted value
//   raft               Ongaro and Ousterhout, ATC 2014, leader election and log
//                      replication: a vote granted twice in one term
//
// Contract of every entry, as in the bug suite (tests/bugs/programs.hpp):
// exploring `buggy` with the default strategy finds a bug of `kind` whose
// message contains `message` within `iterations` iterations at the default
// seed; exploring `fixed` for `fixed_iterations` finds nothing. Bodies keep all their state in the
// iteration (actors, monitors), so a trace replays exactly. Each body switches
// on the faults its protocol is built to survive (crashes, lost or duplicated
// messages) and drives the protocol with mock timers, so the fixed twins are
// tested under failures, not only under reordering.
//
// tests/protocols checks these promises; benchmarks/protocol_suite measures
// every strategy on every protocol.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "heddle/bug.hpp"
#include "heddle/explore.hpp"
#include "heddle/options.hpp"

namespace heddle_protocols {

struct protocol {
  std::string_view name;         // snake_case, unique; "protocols.<name>" is its test id
  std::string_view description;  // one line: the seeded bug
  void (*buggy)();
  void (*fixed)();
  heddle::bug_kind kind;     // what exploring `buggy` reports
  std::string_view message;  // a substring of the report's message
  std::uint64_t iterations;        // the default strategy finds it within this many
  std::uint64_t fixed_iterations;  // the fixed twin passes this many (a few seconds)
  std::uint64_t max_steps;         // the protocol's step bound (a fair run quiesces well before)
  double nekara_share;       // buggy iterations in Nekara's Table VI, in percent
};

// Every protocol of the suite, in a stable order.
const std::vector<protocol>& all_protocols();

// Quiet options (no report printed, no trace file) for running `p` under
// `strategy` for `iterations` iterations.
heddle::options options_for(const protocol& p, std::string_view strategy, std::uint64_t iterations);

// The test identity traces of `p` carry: "protocols.<name>".
heddle::test_identity identity_of(const protocol& p);

// The entries, one per file.
protocol chain_replication_protocol();
protocol failure_detector_protocol();
protocol paxos_protocol();
protocol raft_protocol();

}  // namespace heddle_protocols
