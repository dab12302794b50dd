// The randomized strategies (prob:N, pctt:D, pos, db:D, fair(S), portfolio):
// same seed, same decisions; clear errors for bad specs; specs that recreate
// the strategy; and the property each one exists for (fair(S) never starves an
// operation after its budget, pctt keeps a chain of continuations together,
// pos redraws the priorities of racing operations, the portfolio's member for
// iteration i depends on i alone).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "heddle/heddle.hpp"
#include "runner/overrides.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace {

using heddle::detail::make_strategy;

heddle::options quiet(std::string strategy, std::uint64_t iterations) {
  return {.iterations = iterations,
          .strategy = std::move(strategy),
          .spurious_wakeups = false,
          .spurious_cas_failures = false,
          .print_report = false,
          .out = ""};
}

const std::vector<std::string> family = {"prob:2", "pctt:3", "pos", "db:2", "fair(pct:3,after=20)", "portfolio"};

// Which operation ran at each scheduling point of three operations that
// yield three times each and make one data choice, over `iterations`
// iterations; -1 separates iterations.
std::vector<int> decision_log(const std::string& strategy, std::uint64_t seed, std::uint64_t iterations = 50) {
  std::vector<int> log;
  heddle::options o = quiet(strategy, iterations);
  o.seed = seed;
  const auto r = heddle::explore(o, [&] {
    log.push_back(-1);
    auto work = [&](int me) {
      for (int k = 0; k < 3; ++k) {
        heddle::this_thread::yield();
        log.push_back(me);
      }
      log.push_back(100 * me + static_cast<int>(heddle::choose_int(5)));
    };
    heddle::thread a([&] { work(2); });
    heddle::thread b([&] { work(3); });
    work(1);
    a.join();
    b.join();
  });
  EXPECT_FALSE(r.bug) << strategy;
  EXPECT_EQ(r.stats.iterations, iterations) << strategy;
  return log;
}

void racy_increments() {
  heddle::shared<int> counter{0};
  auto increment = [&] {
    const int v = counter.load();
    counter.store(v + 1);
  };
  heddle::thread a(increment);
  heddle::thread b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter.load() == 2);
}

std::string usage_message(const std::string& spec) {
  try {
    (void)make_strategy(spec);
  } catch (const heddle::usage_error& e) {
    return e.what();
  }
  return "no error for '" + spec + "'";
}

}  // namespace

TEST(strategy_random_family, same_seed_gives_the_same_decisions_and_another_seed_others) {
  for (const std::string& spec : family) {
    const std::vector<int> first = decision_log(spec, 7);
    EXPECT_EQ(first, decision_log(spec, 7)) << spec;
    EXPECT_NE(first, decision_log(spec, 8)) << spec << " ignores its seed";
  }
}

TEST(strategy_random_family, failing_iteration_trace_is_the_same_for_the_same_seed) {
  for (const std::string& spec : family) {
    const auto a = heddle::explore(quiet(spec, 2000), racy_increments);
    const auto b = heddle::explore(quiet(spec, 2000), racy_increments);
    ASSERT_TRUE(a.bug) << spec;
    ASSERT_TRUE(b.bug) << spec;
    EXPECT_EQ(a.bug->message, "assertion failed: counter.load() == 2") << spec;
    EXPECT_EQ(a.trace.header.iteration, b.trace.header.iteration) << spec;
    EXPECT_EQ(heddle::to_json(a.trace), heddle::to_json(b.trace)) << spec;
    EXPECT_EQ(a.trace.header.strategy, spec) << spec;
  }
}

TEST(strategy_random_family, bad_specs_are_usage_errors_that_say_what_is_wrong) {
  EXPECT_EQ(usage_message("prob:0"), "bad strategy spec 'prob:0': expected a whole number from 1 to 30 after ':'");
  EXPECT_EQ(usage_message("prob:31"), "bad strategy spec 'prob:31': expected a whole number from 1 to 30 after ':'");
  EXPECT_EQ(usage_message("prob:x"), "bad strategy spec 'prob:x': expected a whole number from 1 to 30 after ':'");
  EXPECT_EQ(usage_message("pctt:"), "bad strategy spec 'pctt:': expected a whole number from 1 to 100 after ':'");
  EXPECT_EQ(usage_message("db:-1"), "bad strategy spec 'db:-1': expected a whole number from 1 to 100 after ':'");
  EXPECT_EQ(usage_message("pos:1"), "bad strategy spec 'pos:1': this strategy takes no argument");
  EXPECT_EQ(usage_message("portfolio:1"), "bad strategy spec 'portfolio:1': this strategy takes no argument");
  EXPECT_EQ(usage_message("fair(pct:3"), "bad strategy spec 'fair(pct:3': missing ')'");
  const std::string nope = usage_message("fair(nope)");
  EXPECT_TRUE(nope.starts_with("bad strategy spec 'fair(nope)': the inner strategy is not valid: unknown strategy "
                               "'nope' (known: "))
      << nope;
  EXPECT_NE(nope.find("fair(S) or fair(S,after=N)"), std::string::npos) << nope;
  EXPECT_NE(usage_message("fair()").find("expected fair(S), a strategy S between the parentheses"), std::string::npos);
  EXPECT_NE(usage_message("fair").find("expected fair(S)"), std::string::npos);
  EXPECT_EQ(usage_message("fair(random,after=x)"),
            "bad strategy spec 'fair(random,after=x)': expected ',after=N' (N = steps before random takes over, a "
            "whole number) after the inner strategy, not ',after=x'");
  EXPECT_NE(usage_message("fair(prob:0)").find("the inner strategy is not valid: bad strategy spec 'prob:0'"),
            std::string::npos);
}

TEST(strategy_random_family, describe_gives_the_spec_that_recreates_the_strategy) {
  for (const std::string spec :
       {"prob:2", "prob:30", "pctt:1", "pos", "db:3", "fair(pct:3)", "fair(pct:3,after=5000)", "portfolio",
        "fair(fair(prob:1,after=3),after=4)"})
    EXPECT_EQ(make_strategy(spec)->describe(), spec);
  EXPECT_EQ(make_strategy("prob")->describe(), "prob:2");
  EXPECT_EQ(make_strategy("fair(pct:3,after=10000)")->describe(), "fair(pct:3)");  // the default budget
  EXPECT_EQ(make_strategy("fair(pct:3)", {.fair_after = 5000})->describe(), "fair(pct:3,after=5000)");
  EXPECT_EQ(make_strategy("fair(pct:3,after=7)", {.fair_after = 5000})->describe(), "fair(pct:3,after=7)");
  EXPECT_TRUE(make_strategy("fair(pct:3)")->is_fair());
  EXPECT_FALSE(make_strategy("pct:3")->is_fair());
  EXPECT_FALSE(make_strategy("portfolio")->is_fair());
}

TEST(strategy_random_family, portfolio_is_the_default_strategy) {
  EXPECT_EQ(heddle::options{}.strategy, "portfolio");
  const auto r = heddle::explore({.print_report = false, .out = ""}, racy_increments);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.trace.header.strategy, "portfolio");
}

// --- fair(S) -----------------------------------------------------------------

// Two operations spin forever on yield; the iteration ends at max_steps.
// Before the budget, S (prob:30 almost never switches; pct:1 never does) runs
// one of them alone. After it, uniform random chooses between the two at every
// step, so a run of 64 steps without the other has probability 2^-63 at any
// given step: over 4,000 steps, less than 10^-15. The bound asserted is 64.
TEST(strategy_fair, never_starves_an_enabled_operation_after_its_budget) {
  constexpr std::uint64_t budget = 300;
  constexpr std::size_t bound = 64;
  for (const std::string spec : {"fair(prob:30)", "fair(pct:1)"}) {
    std::vector<int> log;
    heddle::options o = quiet(spec, 3);
    o.max_steps = 4000;
    o.fair_after = budget;
    const auto r = heddle::explore(o, [&] {
      log.push_back(0);
      auto spin = [&](int me) {
        for (;;) {
          heddle::this_thread::yield();
          log.push_back(me);
        }
      };
      heddle::spawn([&] { spin(2); }, "spinner");
      spin(1);
    });
    ASSERT_FALSE(r.bug) << spec;
    EXPECT_EQ(r.stats.max_steps_hits, 3u) << spec;
    // Split the log into iterations; the i-th entry of an iteration was logged
    // at step i or later, so entries from index `budget` on are past the budget.
    std::vector<std::vector<int>> iterations;
    for (int entry : log) {
      if (entry == 0) iterations.emplace_back();
      else iterations.back().push_back(entry);
    }
    ASSERT_EQ(iterations.size(), 3u);
    for (const std::vector<int>& runs : iterations) {
      ASSERT_GT(runs.size(), 3000u);
      // Under S alone, one operation starves: the first 250 entries are all one.
      EXPECT_TRUE(std::all_of(runs.begin(), runs.begin() + 250, [&](int e) { return e == runs[0]; })) << spec;
      std::size_t longest = 0;
      std::size_t run = 0;
      for (std::size_t i = budget; i < runs.size(); ++i) {
        run = (i > budget && runs[i] == runs[i - 1]) ? run + 1 : 1;
        longest = std::max(longest, run);
      }
      EXPECT_LE(longest, bound) << spec;
      EXPECT_GE(std::count(runs.begin() + budget, runs.end(), 1), 1000) << spec;
      EXPECT_GE(std::count(runs.begin() + budget, runs.end(), 2), 1000) << spec;
    }
  }
}

TEST(strategy_fair, budget_comes_from_the_option_environment_and_spec) {
  heddle::options o;
  heddle::detail::set_option(o, "fair_after", "5000", "--heddle_fair_after");
  EXPECT_EQ(o.fair_after, 5000u);
  EXPECT_THROW(heddle::detail::set_option(o, "fair_after", "soon", "--heddle_fair_after"), heddle::usage_error);
  ::setenv("HEDDLE_FAIR_AFTER", "123", 1);
  EXPECT_EQ(heddle::detail::with_overrides({}).fair_after, 123u);
  ::unsetenv("HEDDLE_FAIR_AFTER");
  // explore() hands the option to the strategy; the trace's spec keeps it.
  heddle::options run = quiet("fair(pct:3)", 2000);
  run.fair_after = 5;
  const auto r = heddle::explore(run, racy_increments);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.trace.header.strategy, "fair(pct:3,after=5)");
}

// --- pctt:D ------------------------------------------------------------------

namespace {

// Chain A is `links` operations, each the continuation of the one before: link
// i records progress i and creates link i+1. Chain B, independent, checks the
// progress once. The bug needs all of chain A to run before chain B starts.
void chain_race(int links) {
  auto progress = std::make_shared<int>(0);
  auto link = std::make_shared<std::function<void(int)>>();
  *link = [progress, link, links](int i) {
    *progress = i;
    if (i < links)
      heddle::spawn([link, i] { (*link)(i + 1); }, "link", heddle::relation::continuation,
                    heddle::current_operation());
  };
  heddle::spawn([link] { (*link)(1); }, "chain");
  heddle::spawn([progress, links] { HEDDLE_ASSERT(*progress < links); }, "checker");
}

double chain_race_rate(const std::string& strategy, int links, std::uint64_t iterations) {
  heddle::options o = quiet(strategy, iterations);
  o.stop_on_first_bug = false;
  const auto r = heddle::explore(o, [links] { chain_race(links); });
  EXPECT_EQ(r.stats.iterations, iterations);
  if (r.bug) {
    EXPECT_EQ(r.bug->message, "assertion failed: *progress < links");
  }
  return static_cast<double>(r.stats.buggy_iterations) / static_cast<double>(iterations);
}

}  // namespace

// pctt:1 gives chain A one priority: it runs whole before B whenever A's
// priority is the higher one, about half the time. random needs B to lose 50
// coin flips (2^-50). pct:1 gives every link its own rank: B must rank below
// all 50 links, probability 1/51 (about 2%, its 1/n guarantee for n = 51
// operations); with 150 links that falls to 1/151, under 1%.
TEST(strategy_pctt, keeps_a_chain_of_continuations_together) {
  const double pctt = chain_race_rate("pctt:1", 50, 1000);
  const double pct = chain_race_rate("pct:1", 50, 1000);
  const double random = chain_race_rate("random", 50, 1000);
  EXPECT_GE(pctt, 0.40);
  EXPECT_LT(random, 0.01);
  EXPECT_LT(pct, 0.03);
  EXPECT_GE(chain_race_rate("pctt:1", 150, 1000), 0.40);
  EXPECT_LT(chain_race_rate("pct:1", 150, 1000), 0.01);
}

// --- pos ---------------------------------------------------------------------

TEST(strategy_pos, finds_a_lost_update_within_a_few_iterations) {
  const auto r = heddle::explore(quiet("pos", 20), racy_increments);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: counter.load() == 2");
  EXPECT_LT(r.trace.header.iteration, 10u);
}

namespace {

using heddle::point_kind;
using heddle::detail::decision_context;
using heddle::detail::pending_operation;

// One decision of pos over operations pending at fixed points: the chosen id.
heddle::operation_id pick(heddle::detail::strategy& s, const std::vector<pending_operation>& enabled,
                          std::uint64_t step) {
  const decision_context ctx{enabled, 0, step, 3, 0, false};
  return enabled.at(s.next_operation(ctx)).id;
}

}  // namespace

// Operation 1 writes variable #10, operation 2 writes #10 too (they race),
// operation 3 writes #20 (independent). Over many seeds, take the iterations
// where pos runs operation 1 first and look at who runs next, 2 or 3. Without
// redrawing, 2 and 3 keep the ranks they had below 1, and each goes first half
// the time. With redrawing, 2's priority is fresh while 3's is still one known
// to be below 1's maximum, so 2 wins with probability 5/8.
TEST(strategy_pos, redraws_the_priorities_of_operations_racing_with_the_step) {
  const pending_operation op1{1, 1, 0, point_kind::write, 10, false};
  const pending_operation op2{2, 2, 0, point_kind::write, 10, false};
  const pending_operation op3{3, 3, 0, point_kind::write, 20, false};
  int first_was_1 = 0;
  int then_2 = 0;
  const auto pos = make_strategy("pos");
  for (std::uint64_t seed = 0; seed < 12000; ++seed) {
    pos->begin_iteration(seed, heddle::detail::iteration_seed(1, seed));
    if (pick(*pos, {op1, op2, op3}, 0) != 1) continue;
    ++first_was_1;
    then_2 += pick(*pos, {op2, op3}, 1) == 2 ? 1 : 0;  // operation 1 has finished
  }
  ASSERT_GT(first_was_1, 3500);
  const double rate = static_cast<double>(then_2) / first_was_1;
  EXPECT_NEAR(rate, 5.0 / 8.0, 0.03);

  // A read and a read of one variable do not race: nothing is redrawn, so
  // the two keep their relative order, and 2 and 3 go first half the time each.
  const pending_operation read1{1, 1, 0, point_kind::read, 10, false};
  const pending_operation read2{2, 2, 0, point_kind::read, 10, false};
  first_was_1 = 0;
  then_2 = 0;
  for (std::uint64_t seed = 0; seed < 12000; ++seed) {
    pos->begin_iteration(seed, heddle::detail::iteration_seed(1, seed));
    if (pick(*pos, {read1, read2, op3}, 0) != 1) continue;
    ++first_was_1;
    then_2 += pick(*pos, {read2, op3}, 1) == 2 ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(then_2) / first_was_1, 0.5, 0.03);
}

// --- prob:N and db:D ----------------------------------------------------------

// prob:30 switches with probability 2^-30 per decision: once operation 2 runs,
// it keeps running to its end, so the yields of the three operations come out
// in three blocks (at most two switches away from a blocked or finished one).
TEST(strategy_prob, keeps_the_current_operation_unless_all_coins_say_switch) {
  const std::vector<int> log = decision_log("prob:30", 1, 20);
  int switches = 0;
  for (std::size_t i = 1; i < log.size(); ++i)
    if (log[i] > 0 && log[i] < 100 && log[i - 1] > 0 && log[i - 1] < 100 && log[i] != log[i - 1]) ++switches;
  EXPECT_EQ(switches, 0);
  const std::vector<int> random_log = decision_log("random", 1, 20);
  switches = 0;
  for (std::size_t i = 1; i < random_log.size(); ++i)
    if (random_log[i] > 0 && random_log[i] < 100 && random_log[i - 1] > 0 && random_log[i - 1] < 100 &&
        random_log[i] != random_log[i - 1])
      ++switches;
  EXPECT_GT(switches, 20);
}

// db:1 runs the deterministic round-robin schedule with one delay: with one
// delay the schedules form a small set, all different from plain
// round-robin only where the delay lands.
TEST(strategy_db, delays_change_a_deterministic_round_robin) {
  const auto r = heddle::explore(quiet("db:1", 200), racy_increments);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "assertion failed: counter.load() == 2");
  const std::vector<int> log = decision_log("db:1", 3, 40);
  std::vector<std::vector<int>> iterations;
  for (int e : log) {
    if (e == -1) iterations.emplace_back();
    else if (e < 100) iterations.back().push_back(e);
  }
  std::sort(iterations.begin(), iterations.end());
  const auto distinct = std::unique(iterations.begin(), iterations.end()) - iterations.begin();
  EXPECT_GT(distinct, 1);
  EXPECT_LT(distinct, 20);
}

// --- portfolio ---------------------------------------------------------------

namespace {

// Three operations, four points each, with a data choice at every third
// decision, run straight against a strategy; returns the decisions. Twelve
// steps: shorter than the 32 steps learning strategies assume before they
// have seen an iteration, so nothing they learn changes their decisions.
std::vector<std::uint64_t> synthetic_iteration(heddle::detail::strategy& s, std::uint64_t index) {
  std::vector<std::uint64_t> decisions;
  int left[4] = {0, 4, 4, 4};
  heddle::operation_id current = 1;
  s.begin_iteration(index, heddle::detail::iteration_seed(99, index));
  for (std::uint64_t step = 0;; ++step) {
    std::vector<pending_operation> enabled;
    for (heddle::operation_id id = 1; id <= 3; ++id)
      if (left[id] > 0) enabled.push_back({id, id, 0, id == 2 ? point_kind::read : point_kind::write, 10, false});
    if (enabled.empty()) break;
    const decision_context ctx{enabled, current, step, 3, 0, false};
    current = enabled.at(s.next_operation(ctx)).id;
    decisions.push_back(current);
    --left[current];
    if (step % 3 == 2) decisions.push_back(1000 + s.next_value(ctx, {.bound = 7}));
  }
  s.end_iteration({decisions.size(), false, false});
  return decisions;
}

}  // namespace

TEST(strategy_portfolio, iteration_strategy_depends_only_on_its_index) {
  constexpr std::uint64_t count = 24;
  std::vector<std::string> members;
  for (std::uint64_t i = 0; i < count; ++i) members.push_back(heddle::detail::portfolio_member(i));
  std::vector<std::string> distinct = members;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  ASSERT_GE(distinct.size(), 3u);
  const std::size_t size = distinct.size();
  for (std::uint64_t i = 0; i < count; ++i) EXPECT_EQ(members[i], members[i % size]) << i;

  // The portfolio run forward, and another run backward: iteration i's
  // decisions are those of a lone instance of members[i] that ran the same
  // member's iterations in the same order (members that learn, such as ql,
  // carry their state only from their own iterations).
  for (const bool backward : {false, true}) {
    const auto portfolio = make_strategy("portfolio");
    std::vector<std::unique_ptr<heddle::detail::strategy>> alone;
    for (std::size_t m = 0; m < size; ++m) alone.push_back(make_strategy(members[m]));
    for (std::uint64_t n = 0; n < count; ++n) {
      const std::uint64_t i = backward ? count - 1 - n : n;
      EXPECT_EQ(synthetic_iteration(*portfolio, i), synthetic_iteration(*alone[i % size], i))
          << "iteration " << i << " under " << members[i] << (backward ? ", run backward" : "");
    }
  }
  // Iterations under non-learning members (pos first) do not depend on what
  // ran before: iteration 0 alone decides as iteration 0 after all the others.
  const auto fresh = make_strategy("portfolio");
  const auto used = make_strategy("portfolio");
  for (std::uint64_t i = count; i-- > 1;) (void)synthetic_iteration(*used, i);
  EXPECT_EQ(members[0], "pos");
  EXPECT_EQ(synthetic_iteration(*fresh, 0), synthetic_iteration(*used, 0));
}
