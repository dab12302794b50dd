// `surw` (selectively uniform random walk): determinism, spec errors, that it
// finds a lost update, and the property it exists for: uniform sampling over
// the interleavings of interesting events, so an event of a short operation is
// as likely to come last as anywhere, where `random` almost never delays it.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "heddle/heddle.hpp"

namespace {

heddle::options exact(std::uint64_t iterations, std::string strategy) {
  return {.iterations = iterations,
          .strategy = std::move(strategy),
          .spurious_wakeups = false,
          .spurious_cas_failures = false,
          .stop_on_first_bug = false,
          .print_report = false,
          .out = ""};
}

// Operation `a` stores 0 once; operation `b` stores 1..20 into the same
// variable. The assertion fails only when a's store comes after all of b's:
// 1 of the 21 positions of a's store, so 1/21 of the interleavings (uniform
// sampling), but about 2^-20 of random walks.
void late_single_store() {
  heddle::shared<int> x{-1};
  heddle::thread a([&] { x = 0; });
  heddle::thread b([&] {
    for (int i = 1; i <= 20; ++i) x = i;
  });
  a.join();
  b.join();
  HEDDLE_ASSERT_MSG(x != 0, "the single store came last");
}

std::vector<std::string> orders(const heddle::options& o) {
  std::vector<std::string> out;
  heddle::explore(o, [&] {
    std::string log;
    heddle::shared<int> x{0};
    heddle::mutex m;
    auto worker = [&](char id) {
      for (int i = 0; i < 3; ++i) {
        x = x + 1;
        log += id;
        std::lock_guard lock(m);
        log += '.';
      }
    };
    heddle::thread a(worker, 'a'), b(worker, 'b'), c(worker, 'c');
    a.join();
    b.join();
    c.join();
    out.push_back(log);
  });
  return out;
}

void lost_update() {
  heddle::shared<int> counter{0};
  auto increment = [&] { counter++; };
  heddle::thread a(increment), b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2);
}

}  // namespace

TEST(strategy_surw, same_seed_gives_same_decisions) {
  const auto first = orders(exact(300, "surw"));
  ASSERT_EQ(first.size(), 300u);
  EXPECT_EQ(orders(exact(300, "surw")), first);
  auto other_seed = exact(300, "surw");
  other_seed.seed = 7;
  EXPECT_NE(orders(other_seed), first);
}

TEST(strategy_surw, arguments_are_usage_errors) {
  for (const char* spec : {"surw:2", "surw(pct:3)"}) {
    try {
      heddle::explore(exact(1, spec), [] {});
      FAIL() << spec << " was accepted";
    } catch (const heddle::usage_error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("bad strategy spec '") + spec + "': this strategy takes no argument");
    }
  }
}

TEST(strategy_surw, finds_lost_update) {
  auto o = exact(1000, "surw");
  o.stop_on_first_bug = true;
  const auto r = heddle::explore(o, lost_update);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: counter == 2");
}

TEST(strategy_surw, samples_a_late_store_uniformly_where_random_does_not) {
  const auto uniform = heddle::explore(exact(2000, "surw"), late_single_store);
  ASSERT_TRUE(uniform.bug);
  EXPECT_EQ(uniform.bug->message, "the single store came last");
  // 1/21 of 2000 is about 95; allow for sampling noise.
  EXPECT_GE(uniform.stats.buggy_iterations, 50u) << uniform.stats.buggy_iterations;
  EXPECT_LE(uniform.stats.buggy_iterations, 160u) << uniform.stats.buggy_iterations;
  const auto walk = heddle::explore(exact(2000, "random"), late_single_store);
  EXPECT_EQ(walk.stats.buggy_iterations, 0u);
}

// The uniformity itself: `a` stores 4 times and `b` twice into one variable, so
// their stores interleave in C(6,2) = 15 ways. Over 3000 iterations surw gives
// each about 200 (measured: 1,242 to 1,398 of 20,001 each); random gives
// "bbaaaa" 32 % and "abaaab" 2 % (6,345 and 464 of 20,001).
TEST(strategy_surw, samples_every_interleaving_of_interesting_events_equally_often) {
  std::map<std::string, int> outcomes;
  heddle::explore(exact(3000, "surw"), [&] {
    heddle::shared<int> x{0};
    std::string log;
    heddle::thread a([&] {
      for (int i = 0; i < 4; ++i) {
        x = 1;
        log += 'a';
      }
    });
    heddle::thread b([&] {
      for (int i = 0; i < 2; ++i) {
        x = 2;
        log += 'b';
      }
    });
    a.join();
    b.join();
    ++outcomes[log];
  });
  EXPECT_EQ(outcomes.size(), 15u);
  for (const auto& [log, count] : outcomes) {
    EXPECT_GE(count, 150) << log;
    EXPECT_LE(count, 250) << log;
  }
}
