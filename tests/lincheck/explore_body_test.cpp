// A lincheck declaration as a body for heddle::explore() (the runner's
// workers, shards and traces): the verifier judges each iteration, a
// non-linearizable history is an assertion bug "non-linearizable: ...", the
// first failing iteration and its trace depend on the seed only (not on
// --parallel), shards find the first failure at the same index, its saved
// trace replays, and a deadlock the model blocks in too is no bug.
#include <algorithm>

#include <gtest/gtest.h>

#include "blocking_queue.hpp"
#include "lincheck/execution.hpp"
#include "map.hpp"

namespace {

heddle::options quiet(unsigned parallel) {
  heddle::options o;
  o.iterations = 2000;
  o.seed = 11;
  o.strategy = "random";
  o.parallel = parallel;
  o.print_report = false;
  o.progress = false;
  o.out.clear();
  return o;
}

heddle::result run(const heddle::options& o, const heddle::lincheck::declaration& d) {
  return heddle::explore(o, heddle::lincheck::detail::explore_body(d), {"lincheck_explore.body", {}});
}

TEST(lincheck_explore, racy_map_is_an_assertion_bug_with_the_verifiers_explanation) {
  const auto r = run(quiet(0), examples::map_spec<examples::racy_map>());
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_TRUE(r.bug->message.starts_with("non-linearizable: ")) << r.bug->message;
  EXPECT_NE(r.bug->message.find("get_or_insert(1"), std::string::npos) << r.bug->message;
  // The scenario is the iteration's first data choice, recorded in its trace.
  const auto choice = std::find_if(r.trace.steps.begin(), r.trace.steps.end(),
                                   [](const auto& s) { return s.kind != heddle::step_kind::schedule; });
  ASSERT_NE(choice, r.trace.steps.end());
  EXPECT_EQ(choice->kind, heddle::step_kind::choose_int);
}

TEST(lincheck_explore, same_seed_same_first_failure_and_trace_under_any_parallel) {
  const auto d = examples::map_spec<examples::racy_map>();
  const auto here = run(quiet(0), d);
  const auto workers = run(quiet(2), d);
  ASSERT_TRUE(here.bug);
  ASSERT_TRUE(workers.bug);
  EXPECT_EQ(here.bugs.front().first_iteration, workers.bugs.front().first_iteration);
  EXPECT_EQ(here.bug->message, workers.bug->message);
  EXPECT_EQ(here.trace.steps, workers.trace.steps);
  EXPECT_EQ(here.minimized_trace.steps, workers.minimized_trace.steps);
}

TEST(lincheck_explore, shards_find_the_unsharded_first_failure) {
  const auto d = examples::map_spec<examples::racy_map>();
  const auto whole = run(quiet(0), d);
  ASSERT_TRUE(whole.bug);
  std::uint64_t first = UINT64_MAX;
  for (std::uint64_t i = 0; i < 3; ++i) {
    heddle::options o = quiet(0);
    o.shard_index = i;
    o.shard_count = 3;
    const auto part = run(o, d);
    if (!part.bug) continue;
    EXPECT_EQ(part.bugs.front().first_iteration % 3, i);
    if (part.bugs.front().first_iteration < first) {
      first = part.bugs.front().first_iteration;
      EXPECT_EQ(part.bug->message, whole.bug->message);
    }
  }
  EXPECT_EQ(first, whole.bugs.front().first_iteration);
}

TEST(lincheck_explore, saved_trace_replays_the_non_linearizable_scenario) {
  const auto d = examples::map_spec<examples::racy_map>();
  heddle::options o = quiet(2);
  o.out = ::testing::TempDir() + "lincheck_explore_out";
  const auto r = run(o, d);
  ASSERT_TRUE(r.bug);
  ASSERT_FALSE(r.trace_file.empty());
  for (int i = 0; i < 20; ++i) {
    heddle::options again = quiet(0);
    again.replay = r.trace_file;
    const auto replayed = run(again, d);
    ASSERT_FALSE(replayed.divergence) << *replayed.divergence;
    ASSERT_TRUE(replayed.bug);
    ASSERT_TRUE(r.minimized_trace.found);
    EXPECT_EQ(replayed.bug->message, r.minimized_trace.found->message);
  }
}

TEST(lincheck_explore, passes_the_determinism_check) {
  heddle::options o = quiet(0);
  o.check_determinism = true;
  const auto r = run(o, examples::map_spec<examples::racy_map>());
  EXPECT_FALSE(r.divergence) << *r.divergence;
  ASSERT_TRUE(r.bug);
  EXPECT_TRUE(r.bug->message.starts_with("non-linearizable: ")) << r.bug->message;
}

TEST(lincheck_explore, deadlock_the_model_blocks_in_too_is_no_bug) {
  heddle::options o = quiet(0);
  o.iterations = 500;
  const auto r = run(o, tests::blocking_queue_spec<tests::blocking_queue<true>>());
  EXPECT_FALSE(r.bug) << r.bug->message;
  EXPECT_EQ(r.stats.iterations, 500u);
}

TEST(lincheck_explore, lost_wakeup_is_a_deadlock_the_model_would_not_have) {
  const auto r = run(quiet(0), tests::blocking_queue_spec<tests::blocking_queue<false>>());
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for condition_variable"), std::string::npos) << r.bug->message;
  EXPECT_NE(r.bug->message.find("never returned, but the model would let it return here"), std::string::npos)
      << r.bug->message;
}

}  // namespace
