// The bug suite's promises, checked for every program of programs.hpp:
// - the buggy body is found by its strategy within its bound, with the
//   expected bug kind and message;
// - the fixed twin passes 2,000 iterations under random and under pct:3;
// - the same seed yields a byte-identical trace;
// - a recorded trace replays the same bug at the same step, 100 times out of 100;
// - both trace encodings round-trip the trace exactly.
// Plus the showcase that PCT finds a long-uninterrupted-run bug far more often
// than uniform random does.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "heddle/explore.hpp"
#include "heddle/trace.hpp"
#include "programs.hpp"
#include "../support/temp_trace_file.hpp"

namespace heddle_bugs {
// Test names show the program, not its bytes.
void PrintTo(const program& p, std::ostream* os) { *os << p.name; }
}  // namespace heddle_bugs

namespace {

using heddle_bugs::program;

constexpr std::uint64_t fixed_iterations = 2000;
constexpr int replays = 100;

// "pct:3" -> "pct3": gtest names allow only letters, digits and underscores.
std::string name_part(std::string_view text) {
  std::string out;
  for (char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') out += c;
  return out;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The first bug of each program under its own strategy at the default seed;
// explored once and shared by the tests that only read it.
const heddle::result& first_bug(const program& p) {
  static std::map<std::string_view, heddle::result> found;
  auto it = found.find(p.name);
  if (it == found.end())
    it = found.emplace(p.name, heddle::explore(heddle_bugs::options_for(p, p.strategy, p.iterations), p.buggy,
                                               heddle_bugs::identity_of(p)))
             .first;
  return it->second;
}

const program& program_named(std::string_view name) {
  for (const program& p : heddle_bugs::all_programs())
    if (p.name == name) return p;
  throw std::runtime_error("no bug program named " + std::string(name));
}

// --- the table itself ----------------------------------------------------------

TEST(bug_table, has_at_least_15_programs_each_found_within_10000_iterations) {
  const auto& all = heddle_bugs::all_programs();
  EXPECT_GE(all.size(), 15u);
  for (const program& p : all) {
    EXPECT_LE(p.iterations, 10'000u) << p.name;
    EXPECT_TRUE(p.strategy == "random" || p.strategy == "pct:3") << p.name << ": " << p.strategy;
    EXPECT_FALSE(p.message.empty()) << p.name;
    EXPECT_NE(p.buggy, p.fixed) << p.name;
  }
}

// --- finding ------------------------------------------------------------------

class bug_is_found : public testing::TestWithParam<program> {};

TEST_P(bug_is_found, by_its_strategy_with_kind_and_message) {
  const program& p = GetParam();
  const heddle::result& r = first_bug(p);
  ASSERT_TRUE(r.bug) << p.name << ": no bug in " << r.stats.iterations << " iterations of " << p.strategy;
  EXPECT_EQ(r.bug->kind, p.kind) << r.report;
  EXPECT_TRUE(contains(r.bug->message, p.message)) << "message: " << r.bug->message << "\nexpected to contain: "
                                                   << p.message;
  EXPECT_FALSE(r.divergence);
  EXPECT_EQ(r.trace.header.test, "bugs." + std::string(p.name));
  RecordProperty("iterations_to_find", static_cast<int>(r.stats.iterations));
  std::printf("[ found    ] %s by %s in %llu iteration(s) at step %llu\n", std::string(p.name).c_str(),
              std::string(p.strategy).c_str(), static_cast<unsigned long long>(r.stats.iterations),
              static_cast<unsigned long long>(r.bug->step));
}

INSTANTIATE_TEST_SUITE_P(bugs, bug_is_found, testing::ValuesIn(heddle_bugs::all_programs()),
                         [](const testing::TestParamInfo<program>& entry) {
                           return std::string(entry.param.name) + "_is_found_by_" + name_part(entry.param.strategy);
                         });

// --- fixed twins --------------------------------------------------------------

struct twin_run {
  program p;
  std::string_view strategy;
};

class fixed_twin : public testing::TestWithParam<twin_run> {};

TEST_P(fixed_twin, passes_2000_iterations) {
  const auto& [p, strategy] = GetParam();
  const heddle::result r =
      heddle::explore(heddle_bugs::options_for(p, strategy, fixed_iterations), p.fixed, heddle_bugs::identity_of(p));
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_FALSE(r.divergence);
  EXPECT_EQ(r.stats.iterations, fixed_iterations);
  // A twin that spun until max_steps would pass without finishing its work.
  EXPECT_EQ(r.stats.max_steps_hits, 0u);
}

std::vector<twin_run> twin_runs() {
  std::vector<twin_run> runs;
  for (const program& p : heddle_bugs::all_programs())
    for (std::string_view s : {"random", "pct:3"}) runs.push_back({p, s});
  return runs;
}

INSTANTIATE_TEST_SUITE_P(bugs, fixed_twin, testing::ValuesIn(twin_runs()),
                         [](const testing::TestParamInfo<twin_run>& entry) {
                           return std::string(entry.param.p.name) + "_fixed_passes_2000_iterations_under_" +
                                  name_part(entry.param.strategy);
                         });

// --- determinism, replay, encodings --------------------------------------------

class bug_trace : public testing::TestWithParam<program> {};

TEST_P(bug_trace, same_seed_gives_a_byte_identical_trace) {
  const program& p = GetParam();
  const heddle::result& first = first_bug(p);
  ASSERT_TRUE(first.bug);
  const heddle::result again =
      heddle::explore(heddle_bugs::options_for(p, p.strategy, p.iterations), p.buggy, heddle_bugs::identity_of(p));
  ASSERT_TRUE(again.bug);
  EXPECT_EQ(heddle::to_json(first.trace), heddle::to_json(again.trace));
  EXPECT_EQ(first.stats.iterations, again.stats.iterations);
}

TEST_P(bug_trace, replays_the_same_bug_at_the_same_step_100_of_100_times) {
  const program& p = GetParam();
  const heddle::result& found = first_bug(p);
  ASSERT_TRUE(found.bug);
  const temp_trace_file file(std::string(p.name) + ".json", heddle::to_json(found.trace));
  heddle::options o = heddle_bugs::options_for(p, p.strategy, 1);
  o.replay = file.path();
  int reproduced = 0;
  for (int i = 0; i < replays; ++i) {
    const heddle::result r = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
    const bool same = r.bug && !r.divergence && r.bug->kind == found.bug->kind && r.bug->step == found.bug->step &&
                      r.bug->message == found.bug->message && r.trace.steps == found.trace.steps;
    if (same) ++reproduced;
    else if (reproduced == i) ADD_FAILURE() << "replay " << i << " differs: " << r.report << r.divergence.value_or("");
  }
  EXPECT_EQ(reproduced, replays);
}

TEST_P(bug_trace, compact_trace_replays_the_same_bug) {
  const program& p = GetParam();
  const heddle::result& found = first_bug(p);
  ASSERT_TRUE(found.bug);
  const temp_trace_file file(std::string(p.name) + ".trace", heddle::to_compact(found.trace));
  heddle::options o = heddle_bugs::options_for(p, p.strategy, 1);
  o.replay = file.path();
  const heddle::result r = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
  ASSERT_TRUE(r.bug) << r.divergence.value_or("");
  EXPECT_EQ(*r.bug, *found.bug);
}

TEST_P(bug_trace, round_trips_through_json_and_compact_encodings) {
  const program& p = GetParam();
  const heddle::result& found = first_bug(p);
  ASSERT_TRUE(found.bug);
  EXPECT_EQ(heddle::trace_from_json(heddle::to_json(found.trace)), found.trace);
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(found.trace)), found.trace);
}

INSTANTIATE_TEST_SUITE_P(bugs, bug_trace, testing::ValuesIn(heddle_bugs::all_programs()),
                         [](const testing::TestParamInfo<program>& entry) { return std::string(entry.param.name); });

TEST(bug_trace_seeds, different_seeds_lead_to_different_failing_schedules) {
  // Not every program must differ (a bug may have one schedule), but across
  // the suite a different seed must change some failing schedule.
  int differing = 0;
  for (const program& p : heddle_bugs::all_programs()) {
    heddle::options o = heddle_bugs::options_for(p, p.strategy, p.iterations);
    const heddle::result& base = first_bug(p);
    o.seed = base.trace.header.seed + 1;
    const heddle::result other = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
    ASSERT_TRUE(other.bug) << p.name;
    if (other.trace.steps != base.trace.steps) ++differing;
  }
  EXPECT_GT(differing, 0);
}

// --- the OS-thread backend ------------------------------------------------------
// The engine decides and the backend only switches: the same seed must give
// the same schedule on threads as on fibers, and a trace recorded on one
// backend must replay on the other.

heddle::options on_backend(heddle::options o, std::string_view backend) {
  o.backend = std::string(backend);
  return o;
}

class on_threads : public testing::TestWithParam<program> {};

TEST_P(on_threads, finds_the_same_bug_with_the_same_trace_as_on_fibers) {
  const program& p = GetParam();
  const heddle::result& fibers = first_bug(p);
  ASSERT_TRUE(fibers.bug);
  const heddle::result threads = heddle::explore(
      on_backend(heddle_bugs::options_for(p, p.strategy, p.iterations), "threads"), p.buggy, heddle_bugs::identity_of(p));
  ASSERT_TRUE(threads.bug) << p.name;
  EXPECT_EQ(threads.bug->kind, p.kind) << threads.report;
  EXPECT_TRUE(contains(threads.bug->message, p.message)) << threads.bug->message;
  EXPECT_EQ(threads.trace.header.backend, "threads");
  EXPECT_EQ(threads.trace.steps, fibers.trace.steps);
  EXPECT_EQ(threads.stats.iterations, fibers.stats.iterations);
}

TEST_P(on_threads, a_fiber_trace_replays_on_threads_and_a_thread_trace_on_fibers) {
  const program& p = GetParam();
  const heddle::result& fibers = first_bug(p);
  ASSERT_TRUE(fibers.bug);
  const heddle::result threads = heddle::explore(
      on_backend(heddle_bugs::options_for(p, p.strategy, p.iterations), "threads"), p.buggy, heddle_bugs::identity_of(p));
  ASSERT_TRUE(threads.bug);
  struct crossing {
    const heddle::result& recorded;
    std::string_view replay_on;
  };
  for (const crossing& c : {crossing{fibers, "threads"}, crossing{threads, "fibers"}}) {
    const temp_trace_file file(std::string(p.name) + "-cross.json", heddle::to_json(c.recorded.trace));
    heddle::options o = on_backend(heddle_bugs::options_for(p, p.strategy, 1), c.replay_on);
    o.replay = file.path();
    for (int i = 0; i < 10; ++i) {
      const heddle::result r = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
      ASSERT_TRUE(r.bug) << "replay on " << c.replay_on << ": " << r.divergence.value_or("no bug");
      EXPECT_EQ(*r.bug, *c.recorded.bug) << "replay on " << c.replay_on;
      EXPECT_EQ(r.trace.steps, c.recorded.trace.steps);
    }
  }
}

TEST_P(on_threads, the_fixed_twin_passes_300_iterations) {
  const program& p = GetParam();
  const heddle::result r = heddle::explore(on_backend(heddle_bugs::options_for(p, "random", 300), "threads"), p.fixed,
                                           heddle_bugs::identity_of(p));
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(r.stats.iterations, 300u);
  EXPECT_EQ(r.stats.max_steps_hits, 0u);
}

INSTANTIATE_TEST_SUITE_P(bugs, on_threads, testing::ValuesIn(heddle_bugs::all_programs()),
                         [](const testing::TestParamInfo<program>& entry) { return std::string(entry.param.name); });

TEST(bug_trace_backend, a_replay_runs_on_the_recorded_backend_unless_asked_otherwise) {
  const program& p = program_named(heddle_bugs::all_programs().front().name);
  const heddle::result threads = heddle::explore(
      on_backend(heddle_bugs::options_for(p, p.strategy, p.iterations), "threads"), p.buggy, heddle_bugs::identity_of(p));
  ASSERT_TRUE(threads.bug);
  const temp_trace_file file("backend.json", heddle::to_json(threads.trace));
  heddle::options o = heddle_bugs::options_for(p, p.strategy, 1);
  o.replay = file.path();
  EXPECT_EQ(heddle::explore(o, p.buggy, heddle_bugs::identity_of(p)).trace.header.backend, "threads");
  EXPECT_EQ(heddle::explore(on_backend(o, "fibers"), p.buggy, heddle_bugs::identity_of(p)).trace.header.backend,
            "threads");  // "fibers" is the default, so it does not count as asking
  const heddle::trace back = heddle::trace_from_compact(heddle::to_compact(threads.trace));
  EXPECT_EQ(back.header.backend, "threads");
}

// --- PCT versus random ----------------------------------------------------------

// Counts the iterations whose bug the body itself raised on main (operation 1):
// an assertion failure unwinds main through this frame while the engine is not
// yet unwinding the iteration.
std::uint64_t hits_over(const program& p, std::string_view strategy, std::uint64_t iterations) {
  std::uint64_t hits = 0;
  heddle::options o = heddle_bugs::options_for(p, strategy, iterations);
  o.stop_on_first_bug = false;
  const heddle::result r = heddle::explore(
      o,
      [&] {
        try {
          p.buggy();
        } catch (...) {
          if (!heddle::unwinding()) ++hits;
          throw;
        }
      },
      heddle_bugs::identity_of(p));
  EXPECT_EQ(r.stats.iterations, iterations);
  if (hits > 0) {
    EXPECT_TRUE(r.bug && r.bug->kind == p.kind && contains(r.bug->message, p.message));
  }
  return hits;
}

TEST(pct_versus_random, pct3_finds_the_long_uninterrupted_run_over_10x_more_often_than_random) {
  const program& p = program_named("pct_long_uninterrupted_run");
  const std::uint64_t pct = hits_over(p, "pct:3", 2000);
  const std::uint64_t random = hits_over(p, "random", 2000);
  RecordProperty("pct3_hits_of_2000", static_cast<int>(pct));
  RecordProperty("random_hits_of_2000", static_cast<int>(random));
  std::printf("[ rates    ] %s over 2000 iterations: pct:3 %llu hits, random %llu hits\n",
              std::string(p.name).c_str(), static_cast<unsigned long long>(pct),
              static_cast<unsigned long long>(random));
  EXPECT_GT(pct, 0u);
  EXPECT_TRUE(random == 0 || pct > 10 * random) << "pct:3 " << pct << ", random " << random;
}

}  // namespace
