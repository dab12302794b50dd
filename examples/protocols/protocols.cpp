// The protocol suite's table (protocols.hpp): one entry per protocol file.
#include "protocols.hpp"

namespace heddle_protocols {

const std::vector<protocol>& all_protocols() {
  static const std::vector<protocol> all{chain_replication_protocol(), failure_detector_protocol(), paxos_protocol(), raft_protocol()};
  return all;
}

heddle::options options_for(const protocol& p, std::string_view strategy, std::uint64_t iterations) {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = std::string(strategy);
  o.print_report = false;
  o.progress = false;
  o.out.clear();
  o.max_steps = p.max_steps;
  return o;
}

heddle::test_identity identity_of(const protocol& p) {
  return {.test = "protocols." + std::string(p.name), .program = ""};
}

}  // namespace heddle_protocols
