// --check-determinism: each iteration runs three times on the same schedule;
// a test that depends on what heddle does not control (the clock, addresses)
// is flagged with the step where it diverged, and the bug suite passes.
#include <chrono>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "heddle/heddle.hpp"
#include "programs.hpp"

namespace {

heddle::options checking(std::uint64_t iterations) {
  return {.iterations = iterations, .strategy = "random", .print_report = false, .out = "",
          .check_determinism = true};
}

// One more scheduling point when a bit of something outside heddle's control is set.
void branch_on(bool outside) {
  heddle::mutex m;
  heddle::thread t([&] {
    m.lock();
    m.unlock();
  });
  if (outside) {
    m.lock();
    m.unlock();
  }
  t.join();
}

TEST(runner_determinism, flags_a_test_that_reads_the_clock) {
  const heddle::result r = heddle::explore(checking(200), [] {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    branch_on(std::chrono::duration_cast<std::chrono::microseconds>(now).count() % 2 == 0);
  }, {"runner.clock", ""});
  ASSERT_TRUE(r.divergence);
  EXPECT_NE(r.divergence->find("not deterministic"), std::string::npos) << *r.divergence;
  EXPECT_NE(r.divergence->find("step"), std::string::npos) << *r.divergence;
}

TEST(runner_determinism, flags_a_test_that_branches_on_an_address) {
  static std::vector<int*> kept;  // kept on purpose: every run of an iteration gets a new address
  // The parity of the address's bits above malloc's 16-byte alignment: one
  // bit alone can stay the same from allocation to allocation (16 never
  // changes when each small chunk is 32 bytes after the last), so whether
  // the test diverged hung on what else the process had allocated.
  const auto parity = [](const int* p) {
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p) >> 4;
    bool odd = false;
    for (; a != 0; a >>= 1) odd ^= (a & 1) != 0;
    return odd;
  };
  const heddle::result r = heddle::explore(checking(200), [&parity] {
    kept.push_back(new int(0));
    branch_on(parity(kept.back()));
  }, {"runner.address", ""});
  for (int* p : kept) delete p;
  kept.clear();
  ASSERT_TRUE(r.divergence);
  EXPECT_NE(r.divergence->find("not deterministic"), std::string::npos) << *r.divergence;
}

TEST(runner_determinism, a_deterministic_test_passes_with_the_same_results) {
  const heddle::result r = heddle::explore(checking(300), [] { branch_on(heddle::choose_bool()); }, {"runner.ok", ""});
  EXPECT_FALSE(r.divergence) << *r.divergence;
  EXPECT_EQ(r.stats.iterations, 300u);
}

TEST(runner_determinism, the_bug_suite_is_deterministic) {
  for (const heddle_bugs::program& p : heddle_bugs::all_programs()) {
    for (auto body : {p.buggy, p.fixed}) {
      heddle::options o = heddle_bugs::options_for(p, p.strategy, 100);
      o.check_determinism = true;
      o.stop_on_first_bug = false;
      const heddle::result r = heddle::explore(o, body, heddle_bugs::identity_of(p));
      EXPECT_FALSE(r.divergence) << p.name << ": " << *r.divergence;
    }
  }
}

}  // namespace
