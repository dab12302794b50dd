// A test built with -fsanitize=address that links the ordinary heddle library
// (built without it), as a user's ASan build of their tests does: the fibers
// must be announced to ASan's runtime (fiber_backend.hpp), or an assertion
// unwinding a fiber, and a stack reused by a later iteration, look like
// stack-buffer-overflows to it. ASan aborts the process on its first report,
// so a test that completes saw none. Before the fix, the bug path below was
// reported as a stack-buffer-overflow within a few hundred iterations.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "heddle/heddle.hpp"

namespace {

// A withdrawal whose check and update are separate critical sections, with
// locals whose destructors run when the failing assertion unwinds the fiber.
void withdrawals(bool fixed) {
  heddle::mutex m;
  int balance = 100;
  auto withdraw = [&](int amount) {
    const std::vector<std::string> locals(3, std::string(40, 'x'));
    if (fixed) {
      heddle::lock_guard lock(m);
      if (balance >= amount) balance -= amount;
    } else {
      bool enough = false;
      {
        heddle::lock_guard lock(m);
        enough = balance >= amount;
      }
      if (enough) {
        heddle::lock_guard lock(m);
        balance -= amount;
      }
    }
    HEDDLE_ASSERT(balance >= 0);
    EXPECT_EQ(locals.size(), 3u);
  };
  heddle::thread alice(withdraw, 80), bob(withdraw, 80);
  alice.join();
  bob.join();
}

heddle::options run_all(std::uint64_t iterations) {
  heddle::options o;
  o.iterations = iterations;
  o.stop_on_first_bug = false;
  o.print_report = false;
  o.minimize = false;
  o.parallel = 0;
  o.out = "";
  o.backend = "fibers";
  return o;
}

TEST(asan_program, the_bug_path_on_fibers_unwinds_without_a_false_report) {
  const heddle::result r = heddle::explore(run_all(2000), [] { withdrawals(false); });
  ASSERT_TRUE(r.bug.has_value());
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: balance >= 0");
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_GT(r.bugs[0].count, 100u);  // many unwinds, each on a reused stack
}

TEST(asan_program, the_fixed_twin_passes) {
  const heddle::result r = heddle::explore(run_all(2000), [] { withdrawals(true); });
  EXPECT_TRUE(r) << r.verdict();
  EXPECT_EQ(r.stats.iterations, 2000u);
}

}  // namespace
