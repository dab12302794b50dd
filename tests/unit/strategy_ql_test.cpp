// `ql` (Q-learning over state fingerprints): determinism, spec errors, that it
// finds a lost update, and that learning from revisits spreads exploration over
// more distinct states than `random` on a small program.
#include <gtest/gtest.h>

#include <memory>
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

// Three operations append their id three times each to a log, with a
// scheduling point before every append; a hash of the log is the state the
// test reports (heddle::state_hash) after each append. Every interleaving is a distinct final log:
// 9!/(3!3!3!) = 1680 of them.
std::vector<std::string> interleavings(const heddle::options& o) {
  std::vector<std::string> logs;
  heddle::explore(o, [&] {
    std::string log;
    auto worker = [&](char id) {
      for (int i = 0; i < 3; ++i) {
        heddle::this_thread::yield();
        log += id;
        heddle::state_hash(std::hash<std::string>{}(log));
      }
    };
    heddle::thread a(worker, 'a'), b(worker, 'b'), c(worker, 'c');
    a.join();
    b.join();
    c.join();
    logs.push_back(log);
  });
  return logs;
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

TEST(strategy_ql, same_seed_gives_same_decisions) {
  const auto first = interleavings(exact(300, "ql"));
  const auto second = interleavings(exact(300, "ql"));
  ASSERT_EQ(first.size(), 300u);
  EXPECT_EQ(first, second);
  auto other_seed = exact(300, "ql");
  other_seed.seed = 7;
  EXPECT_NE(interleavings(other_seed), first);
}

TEST(strategy_ql, arguments_are_usage_errors) {
  for (const char* spec : {"ql:1", "ql(random)"}) {
    try {
      heddle::explore(exact(1, spec), [] {});
      FAIL() << spec << " was accepted";
    } catch (const heddle::usage_error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("bad strategy spec '") + spec + "': this strategy takes no argument");
    }
  }
}

TEST(strategy_ql, finds_lost_update) {
  auto o = exact(1000, "ql");
  o.stop_on_first_bug = true;
  const auto r = heddle::explore(o, lost_update);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: counter == 2");
}

// What learning buys, stated honestly. Operation `a` reads a counter once;
// operation `b` writes 12 variables, bumping the counter after each. The bug
// needs all 24 of b's steps before a's one read: random walk hits it with
// probability about 2^-24 per iteration. The visit penalty steers ql away from
// the states random keeps revisiting (a's read early) toward the rarely seen
// ones; measured at seeds 1, 2, 3: ql 471, 364, 452 iterations; random none in
// 20,000. (On a program whose states never merge, where every fingerprint is a
// new tree node, ql covers no more than random: 304 against 307 distinct
// interleavings of 3x3 appends over 400 iterations.)
void late_read(int steps) {
  heddle::shared<int> progress{0};
  std::vector<std::unique_ptr<heddle::shared<int>>> cells;
  for (int i = 0; i < steps; ++i) cells.push_back(std::make_unique<heddle::shared<int>>(0));
  for (auto& c : cells) (void)c->load();  // object ids in a fixed order, whatever the schedule
  int seen = -1;
  heddle::thread a([&] { seen = progress; });
  heddle::thread b([&] {
    for (int i = 0; i < steps; ++i) {
      cells[static_cast<std::size_t>(i)]->store(1);
      progress = i + 1;
    }
  });
  a.join();
  b.join();
  HEDDLE_ASSERT_MSG(seen != steps, "the reader ran after every step of the writer");
}

TEST(strategy_ql, finds_a_rarely_visited_schedule_that_random_misses) {
  auto o = exact(2000, "ql");
  o.stop_on_first_bug = true;
  const auto learned = heddle::explore(o, [] { late_read(12); });
  ASSERT_TRUE(learned.bug);
  EXPECT_EQ(learned.bug->message, "the reader ran after every step of the writer");
  EXPECT_LE(learned.stats.iterations, 1000u);
  o.strategy = "random";
  o.iterations = 4000;
  const auto walk = heddle::explore(o, [] { late_read(12); });
  EXPECT_FALSE(walk.bug) << "random found it at iteration " << walk.stats.iterations;
}
