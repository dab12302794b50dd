// The task programs' promises (task_programs.hpp): each bug is found by the
// default strategy within 10,000 iterations with its kind and message, each
// fixed twin passes 2,000 iterations, each found bug replays 100 times out of
// 100; and PCT^t finds Coyote's running example where random does not.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "heddle/explore.hpp"
#include "heddle/trace.hpp"
#include "task_programs.hpp"

namespace heddle_tasks {
void PrintTo(const program& p, std::ostream* os) { *os << p.name; }
}  // namespace heddle_tasks

namespace {

using heddle_tasks::program;

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

heddle::test_identity identity_of(const program& p) { return {.test = "tasks." + std::string(p.name), .program = ""}; }

const heddle::result& first_bug(const program& p) {
  static std::map<std::string_view, heddle::result> found;
  auto it = found.find(p.name);
  if (it == found.end())
    it = found.emplace(p.name, heddle::explore(heddle_tasks::quiet(10'000), p.buggy, identity_of(p))).first;
  return it->second;
}

class task_program : public testing::TestWithParam<program> {};

TEST_P(task_program, bug_is_found_by_the_default_strategy_within_10000_iterations) {
  const program& p = GetParam();
  const heddle::result& r = first_bug(p);
  ASSERT_TRUE(r.bug) << p.name << ": no bug in " << r.stats.iterations << " iterations";
  EXPECT_EQ(r.bug->kind, p.kind) << r.report;
  EXPECT_TRUE(contains(r.bug->message, p.message)) << "message: " << r.bug->message << "\nexpected: " << p.message;
  EXPECT_FALSE(r.divergence);
  std::printf("[ found    ] %s in %llu iteration(s)\n", std::string(p.name).c_str(),
              static_cast<unsigned long long>(r.stats.iterations));
}

TEST_P(task_program, fixed_twin_passes_2000_iterations) {
  const program& p = GetParam();
  const heddle::result r = heddle::explore(heddle_tasks::quiet(2000), p.fixed, identity_of(p));
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_FALSE(r.divergence);
  EXPECT_EQ(r.stats.iterations, 2000u);
  EXPECT_EQ(r.stats.max_steps_hits, 0u);
}

TEST_P(task_program, found_bug_replays_100_of_100_times) {
  const program& p = GetParam();
  const heddle::result& found = first_bug(p);
  ASSERT_TRUE(found.bug);
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("heddle-tasks-" + std::to_string(::getpid()) + "-" + std::string(p.name) + ".json");
  std::ofstream(file, std::ios::binary) << heddle::to_json(found.trace);
  heddle::options o = heddle_tasks::quiet(1);
  o.replay = file.string();
  int reproduced = 0;
  for (int i = 0; i < 100; ++i) {
    const heddle::result r = heddle::explore(o, p.buggy, identity_of(p));
    const bool same = r.bug && !r.divergence && r.bug->kind == found.bug->kind && r.bug->step == found.bug->step &&
                      r.bug->message == found.bug->message && r.trace.steps == found.trace.steps;
    if (same) ++reproduced;
    else if (reproduced == i) ADD_FAILURE() << "replay " << i << " differs: " << r.report << r.divergence.value_or("");
  }
  std::filesystem::remove(file);
  EXPECT_EQ(reproduced, 100);
}

INSTANTIATE_TEST_SUITE_P(tasks, task_program, testing::ValuesIn(heddle_tasks::all_programs()),
                         [](const testing::TestParamInfo<program>& entry) { return std::string(entry.param.name); });

TEST(task_programs, there_is_one_per_bug_of_the_issue_that_the_runtime_covers) {
  EXPECT_GE(heddle_tasks::all_programs().size(), 5u);
}

// --- PCT^t on Coyote's running example ---------------------------------------------
// The measured rates (docs/strategies.md) come from benchmarks; here only what
// must hold at any seed: pctt:1 finds it at once; random never in 200, and
// pct never in 500, since each resumption is an operation of its own with a
// fresh priority (before continuations stopped counting dead predecessors'
// ranks, pct:3 found it in 3.3 % of iterations: within 500 at any seed).

TEST(running_example, pctt_1_finds_it_within_20_iterations) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(20, "pctt:1"), heddle_tasks::running_example);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "every message of a came before b's first");
}

TEST(running_example, random_does_not_find_it_in_200_iterations) {
  const heddle::result r = heddle::explore(heddle_tasks::quiet(200, "random"), heddle_tasks::running_example);
  EXPECT_FALSE(r.bug) << r.report;
}

TEST(running_example, pct_gives_each_resumption_a_fresh_priority_and_does_not_find_it_in_500_iterations) {
  for (const char* strategy : {"pct:1", "pct:3"}) {
    const heddle::result r = heddle::explore(heddle_tasks::quiet(500, strategy), heddle_tasks::running_example);
    EXPECT_FALSE(r.bug) << strategy << ": " << r.report;
    EXPECT_EQ(r.stats.iterations, 500u) << strategy;
  }
}

}  // namespace
