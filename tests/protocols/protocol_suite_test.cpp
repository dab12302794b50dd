// The protocol suite's promises, checked for every protocol of
// examples/protocols/protocols.hpp:
// - the seeded bug is found by the default strategy within the entry's bound,
//   with the expected bug kind and message;
// - every buggy iteration of a run that goes on after the first bug has that
//   same bug (the buggy twin has no other);
// - the found bug's trace replays the same bug at the same step, 100 times out of 100;
// - the fixed twin passes under the default strategy and under random; under
//   random, which is fair, it quiesces in every iteration (no iteration is cut
//   at max_steps). The default strategy's members are not all fair: `surw`
//   can starve a server while another's timer keeps firing, and a run cut at
//   max_steps then is no bug (docs/actors.md, "Protocol suite").
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "heddle/explore.hpp"
#include "heddle/trace.hpp"
#include "protocols.hpp"
#include "../support/temp_trace_file.hpp"

namespace heddle_protocols {
void PrintTo(const protocol& p, std::ostream* os) { *os << p.name; }
}  // namespace heddle_protocols

namespace {

using heddle_protocols::protocol;

constexpr int replays = 100;

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

std::string name_part(std::string_view text) {
  std::string out;
  for (char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') out += c;
  return out;
}

// The first bug of each protocol under the default strategy at the default
// seed; explored once and shared by the tests that only read it.
const heddle::result& first_bug(const protocol& p) {
  static std::map<std::string_view, heddle::result> found;
  auto it = found.find(p.name);
  if (it == found.end())
    it = found
             .emplace(p.name, heddle::explore(heddle_protocols::options_for(p, heddle::options{}.strategy, p.iterations),
                                              p.buggy, heddle_protocols::identity_of(p)))
             .first;
  return it->second;
}

std::string test_name(const testing::TestParamInfo<protocol>& entry) { return std::string(entry.param.name); }

// --- the table --------------------------------------------------------------

TEST(protocol_table, has_the_four_protocols_of_nekaras_table_vi) {
  std::vector<std::string_view> names;
  for (const protocol& p : heddle_protocols::all_protocols()) {
    names.push_back(p.name);
    EXPECT_NE(p.buggy, p.fixed) << p.name;
    EXPECT_FALSE(p.message.empty()) << p.name;
    EXPECT_GT(p.nekara_share, 0.0) << p.name;
  }
  EXPECT_EQ(names, (std::vector<std::string_view>{"chain_replication", "failure_detector", "paxos", "raft"}));
}

// --- finding ----------------------------------------------------------------

class seeded_bug : public testing::TestWithParam<protocol> {};

TEST_P(seeded_bug, is_found_by_the_default_strategy_with_its_kind_and_message) {
  const protocol& p = GetParam();
  const heddle::result& r = first_bug(p);
  ASSERT_TRUE(r.bug) << p.name << ": no bug in " << r.stats.iterations << " iterations";
  EXPECT_EQ(r.bug->kind, p.kind) << r.report;
  EXPECT_TRUE(contains(r.bug->message, p.message)) << "message: " << r.bug->message << "\nexpected to contain: "
                                                   << p.message;
  EXPECT_FALSE(r.divergence);
  EXPECT_EQ(r.trace.header.test, "protocols." + std::string(p.name));
  std::printf("[ found    ] %s in %llu iteration(s) at step %llu: %s\n", std::string(p.name).c_str(),
              static_cast<unsigned long long>(r.stats.iterations), static_cast<unsigned long long>(r.bug->step),
              r.bug->message.c_str());
}

TEST_P(seeded_bug, is_the_only_bug_of_the_buggy_twin) {
  const protocol& p = GetParam();
  heddle::options o = heddle_protocols::options_for(p, heddle::options{}.strategy, p.iterations);
  o.stop_on_first_bug = false;
  o.minimize = false;
  const heddle::result r = heddle::explore(o, p.buggy, heddle_protocols::identity_of(p));
  ASSERT_FALSE(r.bugs.empty()) << p.name;
  for (const heddle::bug_group& g : r.bugs) {
    EXPECT_EQ(g.bug.kind, p.kind) << g.report;
    EXPECT_TRUE(contains(g.bug.message, p.message)) << g.bug.message;
  }
}

TEST_P(seeded_bug, replays_the_same_bug_at_the_same_step_100_of_100_times) {
  const protocol& p = GetParam();
  const heddle::result& found = first_bug(p);
  ASSERT_TRUE(found.bug);
  const temp_trace_file file(std::string(p.name) + ".json", heddle::to_json(found.trace));
  heddle::options o = heddle_protocols::options_for(p, heddle::options{}.strategy, 1);
  o.replay = file.path();
  int reproduced = 0;
  for (int i = 0; i < replays; ++i) {
    const heddle::result r = heddle::explore(o, p.buggy, heddle_protocols::identity_of(p));
    const bool same = r.bug && !r.divergence && r.bug->kind == found.bug->kind && r.bug->step == found.bug->step &&
                      r.bug->message == found.bug->message && r.trace.steps == found.trace.steps;
    if (same) ++reproduced;
    else if (reproduced == i) ADD_FAILURE() << "replay " << i << " differs: " << r.report << r.divergence.value_or("");
  }
  EXPECT_EQ(reproduced, replays);
}

// The minimizer keeps the bug's kind and place, not its exact text: the
// fewest-preemption schedule may elect the two leaders in the other order.
TEST_P(seeded_bug, minimized_trace_replays_a_bug_of_the_same_kind_and_message) {
  const protocol& p = GetParam();
  const heddle::result& found = first_bug(p);
  ASSERT_TRUE(found.bug);
  const temp_trace_file file(std::string(p.name) + ".min.json", heddle::to_json(found.minimized_trace));
  heddle::options o = heddle_protocols::options_for(p, heddle::options{}.strategy, 1);
  o.replay = file.path();
  const heddle::result r = heddle::explore(o, p.buggy, heddle_protocols::identity_of(p));
  ASSERT_TRUE(r.bug) << r.divergence.value_or("");
  EXPECT_FALSE(r.divergence);
  EXPECT_EQ(r.bug->kind, p.kind);
  EXPECT_TRUE(contains(r.bug->message, p.message)) << r.bug->message;
}

INSTANTIATE_TEST_SUITE_P(protocols, seeded_bug, testing::ValuesIn(heddle_protocols::all_protocols()), test_name);

// --- fixed twins --------------------------------------------------------------

struct twin_run {
  protocol p;
  std::string_view strategy;
};

class fixed_twin : public testing::TestWithParam<twin_run> {};

TEST_P(fixed_twin, passes_and_quiesces_when_the_strategy_is_fair) {
  const auto& [p, strategy] = GetParam();
  const std::uint64_t iterations = p.fixed_iterations;
  const heddle::result r = heddle::explore(heddle_protocols::options_for(p, strategy, iterations), p.fixed,
                                           heddle_protocols::identity_of(p));
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_FALSE(r.divergence);
  EXPECT_EQ(r.stats.iterations, iterations);
  // A twin cut at max_steps would pass without finishing its work.
  if (strategy == "random") EXPECT_EQ(r.stats.max_steps_hits, 0u);
  else EXPECT_LT(r.stats.max_steps_hits, iterations / 2);
}

std::vector<twin_run> twin_runs() {
  std::vector<twin_run> runs;
  for (const protocol& p : heddle_protocols::all_protocols())
    for (std::string_view s : {"portfolio", "random"}) runs.push_back({p, s});
  return runs;
}

INSTANTIATE_TEST_SUITE_P(protocols, fixed_twin, testing::ValuesIn(twin_runs()),
                         [](const testing::TestParamInfo<twin_run>& entry) {
                           return std::string(entry.param.p.name) + "_fixed_under_" + name_part(entry.param.strategy);
                         });

}  // namespace
