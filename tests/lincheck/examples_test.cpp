// The examples' bugs are found within 100 scenarios and reported as
// non-linearizable results naming the operations involved; the stack's
// minimized scenario has at most 3 calls in its parallel part; the fixed twins
// pass 1,000 scenarios. Each check is deterministic: the seed fixes scenarios
// and schedules.
#include <algorithm>

#include <gtest/gtest.h>

#include "map.hpp"
#include "queue.hpp"
#include "stack.hpp"
#include "treiber.hpp"

namespace {

using heddle::lincheck::check;
using heddle::lincheck::declaration;

bool names(const heddle::lincheck::failure& f, const std::string& op) {
  return std::find(f.operations.begin(), f.operations.end(), op) != f.operations.end();
}

heddle::lincheck::result run_quietly(declaration d) {
  d.opts.print_report = false;
  return check(d);
}

// Fixed versions: 1,000 scenarios, few runs each (bugs are found in a handful).
declaration thorough(declaration d) {
  d.opts.scenarios = 1000;
  d.opts.iterations = 5;
  return d;
}

// Runs a buggy example: found within 100 scenarios, as a non-linearizable history.
heddle::lincheck::failure found(declaration d) {
  const auto r = run_quietly(std::move(d));
  if (!r.failure) {
    ADD_FAILURE() << "no failure found in " << r.scenarios << " scenarios";
    return {};
  }
  EXPECT_EQ(r.failure->kind, "non-linearizable");
  EXPECT_FALSE(r.failure->bug);
  EXPECT_LT(r.failure->scenario_index, 100u);
  // check() searches through the runner, which names the failing iteration.
  EXPECT_TRUE(r.failure->iteration.has_value());
  return *r.failure;
}

TEST(lincheck_examples, racy_stack_size_is_not_linearizable_and_minimizes_to_three_calls) {
  const auto f = found(examples::stack_spec<examples::racy_stack>());
  EXPECT_LE(f.parallel_calls, 3u);
  EXPECT_LT(f.parallel_calls + 2, f.original_calls);
  // Minimization first follows the failing run's schedule without the removed calls.
  EXPECT_GE(f.reductions_on_recorded_schedule, 1u);
  EXPECT_NE(f.report.find("removals kept the failing schedule"), std::string::npos) << f.report;
  EXPECT_TRUE(names(f, "push")) << f.report;
  EXPECT_TRUE(names(f, "size") || names(f, "pop")) << f.report;
  EXPECT_NE(f.message.find("no order of the calls explains the results"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("but the model returns"), std::string::npos) << f.message;
  EXPECT_NE(f.report.find("Interleaving"), std::string::npos);
  EXPECT_NE(f.report.find("push("), std::string::npos) << f.report;
}

TEST(lincheck_examples, racy_queue_returns_one_element_twice) {
  const auto f = found(examples::queue_spec<examples::racy_queue>());
  EXPECT_EQ(std::count(f.operations.begin(), f.operations.end(), "dequeue"), 2) << f.report;
  EXPECT_TRUE(names(f, "enqueue")) << f.report;
  EXPECT_NE(f.message.find("dequeue() [T"), std::string::npos) << f.message;
}

TEST(lincheck_examples, racy_map_get_or_insert_returns_two_values_for_one_key) {
  const auto f = found(examples::map_spec<examples::racy_map>());
  EXPECT_EQ(f.operations, (std::vector<std::string>{"get_or_insert", "get_or_insert"})) << f.report;
  EXPECT_NE(f.message.find("get_or_insert("), std::string::npos) << f.message;
}

// The ABA bug the defaults are chosen to find (docs/lincheck.md, "Why these
// defaults"): a pop() swings the head to a node that was freed, so a value
// comes out twice.
TEST(lincheck_examples, treiber_aba_is_found_under_the_defaults) {
  const auto f = found(examples::treiber_spec<examples::aba_stack>());
  EXPECT_GE(std::count(f.operations.begin(), f.operations.end(), "pop"), 2) << f.report;
  EXPECT_NE(f.message.find("pop() ["), std::string::npos) << f.message;
}

TEST(lincheck_examples, fixed_treiber_passes_1000_scenarios) {
  const auto r = run_quietly(thorough(examples::treiber_spec<examples::tagged_stack>()));
  EXPECT_FALSE(r.failure) << r.failure->report;
  EXPECT_EQ(r.scenarios, 1000u);
}

TEST(lincheck_examples, fixed_stack_passes_1000_scenarios) {
  const auto r = run_quietly(thorough(examples::stack_spec<examples::fixed_stack>()));
  EXPECT_FALSE(r.failure) << r.failure->report;
  EXPECT_EQ(r.scenarios, 1000u);
}

TEST(lincheck_examples, fixed_queue_passes_1000_scenarios) {
  const auto r = run_quietly(thorough(examples::queue_spec<examples::fixed_queue>()));
  EXPECT_FALSE(r.failure) << r.failure->report;
  EXPECT_EQ(r.scenarios, 1000u);
}

TEST(lincheck_examples, fixed_map_passes_1000_scenarios) {
  const auto r = run_quietly(thorough(examples::map_spec<examples::fixed_map>()));
  EXPECT_FALSE(r.failure) << r.failure->report;
  EXPECT_EQ(r.scenarios, 1000u);
}

TEST(lincheck_examples, racy_stack_is_not_sequentially_consistent_either) {
  declaration d = examples::stack_spec<examples::racy_stack>();
  d.opts.consistency = heddle::lincheck::consistency::sequentially_consistent;
  const auto r = run_quietly(d);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->kind, "not sequentially consistent");
  EXPECT_NE(r.failure->message.find("sequential consistency checked"), std::string::npos) << r.failure->message;
}

TEST(lincheck_examples, without_minimization_the_generated_scenario_is_reported) {
  declaration d = examples::stack_spec<examples::racy_stack>();
  d.opts.minimize = false;
  const auto r = run_quietly(d);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->original_calls, 8u);
  EXPECT_EQ(r.failure->operations.size(), 8u);
  EXPECT_EQ(r.failure->reductions, 0u);
}

// The same bugs under the systematic strategies: every schedule of a scenario
// up to a preemption bound, and DPOR.
TEST(lincheck_examples, racy_stack_found_by_bounded_dfs_and_dpor) {
  for (const char* strategy : {"dfs:pb=2", "dpor"}) {
    declaration d = examples::stack_spec<examples::racy_stack>();
    d.opts.strategy = strategy;
    d.opts.iterations = 2000;
    const auto r = run_quietly(d);
    ASSERT_TRUE(r.failure) << strategy;
    EXPECT_EQ(r.failure->kind, "non-linearizable") << strategy;
    EXPECT_LT(r.failure->scenario_index, 100u) << strategy;
  }
}

TEST(lincheck_examples, fixed_stack_passes_every_schedule_under_dpor) {
  declaration d = examples::stack_spec<examples::fixed_stack>();
  d.opts.strategy = "dpor";
  d.opts.iterations = 100000;
  d.opts.scenarios = 20;
  const auto r = run_quietly(d);
  EXPECT_FALSE(r.failure) << r.failure->report;
}

}  // namespace
