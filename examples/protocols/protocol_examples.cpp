// The protocol suite as HEDDLE_TESTs, for the heddle CLI and for reading the
// reports: each seeded bug (the `*_buggy` tests fail with it) and its fixed
// twin (the `*_fixed` tests pass).
//
//   heddle test build/default/examples/protocols/protocol_examples --filter 'protocols.raft_buggy'
//   heddle replay heddle-out/protocols.raft_buggy/bug-1.json
#include <heddle/test.hpp>

#include "protocols.hpp"

namespace {
void run(std::string_view name, bool buggy) {
  for (const heddle_protocols::protocol& p : heddle_protocols::all_protocols())
    if (p.name == name) (buggy ? p.buggy : p.fixed)();
}
}  // namespace

HEDDLE_TEST(protocols, chain_replication_buggy, .iterations = 1000, .max_steps = 5000) { run("chain_replication", true); }
HEDDLE_TEST(protocols, chain_replication_fixed, .iterations = 3000, .max_steps = 5000) { run("chain_replication", false); }
HEDDLE_TEST(protocols, failure_detector_buggy, .iterations = 2000, .max_steps = 5000) { run("failure_detector", true); }
HEDDLE_TEST(protocols, failure_detector_fixed, .iterations = 5000, .max_steps = 5000) { run("failure_detector", false); }
HEDDLE_TEST(protocols, paxos_buggy, .iterations = 2000, .max_steps = 5000) { run("paxos", true); }
HEDDLE_TEST(protocols, paxos_fixed, .iterations = 3000, .max_steps = 5000) { run("paxos", false); }
HEDDLE_TEST(protocols, raft_buggy, .iterations = 1000, .max_steps = 5000) { run("raft", true); }
HEDDLE_TEST(protocols, raft_fixed, .iterations = 500, .max_steps = 5000) { run("raft", false); }
