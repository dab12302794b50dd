// Wait loops under rc11: message passing whose reader waits for the flag in a
// loop, `while (flag.load() == 0) yield();`, then reads the data. A load may
// read a stale store on every turn, so without dpor's rule for wait loops
// (dpor.cpp, "Wait loops") its exhaustive search has no end. The sets below
// are derived by hand from RC11 (docs/memory-model.md, "Wait loops under
// rc11"), never from heddle's output.
//
// Natively a try of a wait loop is what heddle sees between two yields of the
// operation: the loop must yield (heddle::this_thread::yield), as a loop that
// never yields runs alone to --max-steps under dfs and dpor.
#include <fmt/format.h>

#include "heddle/this_thread.hpp"
#include "heddle/trace.hpp"
#include "heddle/thread.hpp"
#include "litmus.hpp"

using namespace litmus;

namespace {

// The reader's outcome: the data it read after seeing the flag, or -1 when it
// gave up (`tries` > 0: at most that many loads of the flag).
outcome mp_spin(std::memory_order store_order, std::memory_order load_order, int tries = 0) {
  heddle::atomic<int> data{0}, flag{0};
  int r = -1;
  heddle::thread writer([&] {
    data.store(1, rlx);
    flag.store(1, store_order);
  });
  heddle::thread reader([&] {
    for (int i = 0; tries == 0 || i < tries; ++i) {
      if (flag.load(load_order) != 0) {
        r = data.load(rlx);
        return;
      }
      heddle::this_thread::yield();
    }
  });
  writer.join();
  reader.join();
  return {r};
}

struct run_result {
  outcomes seen;
  heddle::result r;
};
run_result run_rc11(const char* strategy, const std::function<outcome()>& body) {
  run_result out;
  heddle::options o{.iterations = 1'000'000, .strategy = strategy};
  o.print_report = false;
  o.out.clear();
  o.memory_model = heddle::memory_model::rc11;
  out.r = heddle::explore(o, [&] { out.seen.insert(body()); });
  EXPECT_TRUE(out.r) << out.r.report;
  EXPECT_TRUE(out.r.stats.exhausted) << out.r.verdict();
  EXPECT_EQ(out.r.stats.max_steps_hits, 0u) << out.r.verdict();
  return out;
}

}  // namespace

// Hand derivation. The writer's events are fixed (data=1, then flag=1, each
// the last in its location's mo). The reader's loads of the flag read 0
// (the initial store) some times, then 1; up to failed tries that repeat the
// one before (docs/memory-model.md), that is 0 or 1 failed try: two ways.
// Then its load of the data reads 0 or 1 when the flag is relaxed (nothing
// orders data=1 before it), and only 1 when flag=1 is a release read by an
// acquire (data=1 happens before the load, and coherence forbids the older
// store). So relaxed: 2 x 2 = 4 executions, outcomes {0, 1}; release/acquire:
// 2 x 1 = 2 executions, outcome {1}.
TEST(spin_loop, dpor_verifies_message_passing_through_a_wait_loop_under_rc11) {
  const run_result relaxed = run_rc11("dpor", [] { return mp_spin(rlx, rlx); });
  EXPECT_EQ(relaxed.seen, (outcomes{{0}, {1}}));
  EXPECT_EQ(relaxed.r.stats.schedules, 4u);
  // One run more: the reader's second failed try read the initial store
  // again after flag=1 was placed (stale): cut as redundant.
  EXPECT_EQ(relaxed.r.stats.iterations, 5u);
  const run_result ra = run_rc11("dpor", [] { return mp_spin(rel, acq); });
  EXPECT_EQ(ra.seen, (outcomes{{1}}));
  EXPECT_EQ(ra.r.stats.schedules, 2u);
  EXPECT_EQ(ra.r.stats.iterations, 3u);
  EXPECT_EQ(ra.r.verdict(), fmt::format("passed: explored all {} executions, verified under RC11 for atomics only, "
                                        "assuming a wait loop's try that saw nothing change has no effect",
                                        ra.r.stats.schedules));
}

// dfs has no rule for wait loops: on the loop bounded to three tries (the
// reader gives up, -1, after three loads of 0) it finishes, and reaches the
// outcomes above plus giving up. dpor on that bounded loop reaches the same
// outcomes but giving up: it assumes a try that read the same stores as the
// one before has no effect (the loop's count is invisible to it), cuts the
// runs where a stale 0 is read again, and runs a try that repeats a newest 0
// only when nothing else can run, which here never happens. That is the
// caveat its verdict names (docs/memory-model.md, "Wait loops under rc11").
TEST(spin_loop, dfs_reaches_the_same_outcomes_on_a_bounded_wait_loop_and_giving_up) {
  const run_result relaxed = run_rc11("dfs", [] { return mp_spin(rlx, rlx, 3); });
  EXPECT_EQ(relaxed.seen, (outcomes{{-1}, {0}, {1}}));
  EXPECT_EQ(relaxed.r.stats.schedules, 982u);
  const run_result ra = run_rc11("dfs", [] { return mp_spin(rel, acq, 3); });
  EXPECT_EQ(ra.seen, (outcomes{{-1}, {1}}));
  EXPECT_EQ(ra.r.stats.schedules, 656u);
  const run_result dpor_relaxed = run_rc11("dpor", [] { return mp_spin(rlx, rlx, 3); });
  EXPECT_EQ(dpor_relaxed.seen, (outcomes{{0}, {1}}));
  EXPECT_GT(dpor_relaxed.r.stats.held_wait_iterations, 0u);
  const run_result dpor_ra = run_rc11("dpor", [] { return mp_spin(rel, acq, 3); });
  EXPECT_EQ(dpor_ra.seen, (outcomes{{1}}));
}

// The same seed gives the same result in the test process on either backend
// and in two worker processes: MP through a wait loop with a relaxed flag and
// an assertion on the data is found at the same iteration with the same
// trace, and its release/acquire twin is verified in the same runs.
TEST(spin_loop, dpor_finds_and_verifies_the_same_on_both_backends_and_in_workers) {
  struct run_key {
    bool found = false;
    std::uint64_t first = 0;
    std::string trace;
    std::uint64_t twin_executions = 0, twin_runs = 0;
    bool operator==(const run_key&) const = default;
  };
  const auto describe = [](const run_key& k) {
    return fmt::format("found {} at {}, twin {} executions in {} runs, trace {}", k.found, k.first, k.twin_executions,
                       k.twin_runs, k.trace);
  };
  const auto run_with = [](const char* backend, unsigned parallel) {
    heddle::options o{.iterations = 100'000, .strategy = "dpor", .seed = 7};
    o.print_report = false;
    o.out.clear();
    o.parallel = parallel;
    o.backend = backend;
    o.memory_model = heddle::memory_model::rc11;
    run_key k;
    const heddle::result buggy = heddle::explore(o, [] {
      const outcome r = mp_spin(rlx, rlx);
      HEDDLE_ASSERT(r[0] == 1);
    });
    k.found = buggy.bug.has_value();
    if (k.found) {
      k.first = buggy.bugs.front().first_iteration;
      heddle::trace t = buggy.trace;
      t.header.backend = "fibers";  // where it was recorded: the rest must agree
      k.trace = heddle::to_json(t);
      EXPECT_EQ(buggy.bug->kind, heddle::bug_kind::assertion);
      EXPECT_EQ(buggy.bug->message, "assertion failed: r[0] == 1");
    }
    const heddle::result fixed = heddle::explore(o, [] {
      const outcome r = mp_spin(rel, acq);
      HEDDLE_ASSERT(r[0] == 1);
    });
    EXPECT_TRUE(fixed) << fixed.verdict();
    EXPECT_TRUE(fixed.stats.exhausted) << fixed.verdict();
    k.twin_executions = fixed.stats.schedules;
    k.twin_runs = fixed.stats.iterations;
    return k;
  };
  const run_key here = run_with("fibers", 0);
  EXPECT_TRUE(here.found);
  EXPECT_EQ(here.twin_executions, 2u);
  EXPECT_EQ(here.twin_runs, 3u);
  const run_key threads = run_with("threads", 0);
  EXPECT_TRUE(threads == here) << "threads backend: " << describe(threads) << "\nfibers: " << describe(here);
  const run_key workers = run_with("fibers", 2);
  EXPECT_TRUE(workers == here) << "two workers: " << describe(workers) << "\nin process: " << describe(here);
}

// The cut does not hide a hang: a wait loop whose every read is the newest
// store and that no one will end (the writer stores another atomic) repeats
// no stale store, so it is held back while the writer can run, not cut, and
// then spins on alone: dpor reaches it and, with --fail-on-max-steps,
// reports a livelock.
TEST(spin_loop, dpor_reaches_the_hang_of_a_wait_loop_nobody_ends) {
  heddle::options o{.iterations = 10'000, .strategy = "dpor", .max_steps = 200, .fail_on_max_steps = true};
  o.print_report = false;
  o.out.clear();
  o.memory_model = heddle::memory_model::rc11;
  const heddle::result r = heddle::explore(o, [] {
    heddle::atomic<int> flag{0}, other{0};
    heddle::thread writer([&] { other.store(1, rlx); });
    heddle::thread reader([&] {
      while (flag.load(acq) == 0) heddle::this_thread::yield();
    });
    writer.join();
    reader.join();
  });
  ASSERT_TRUE(r.bug) << r.verdict();
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::livelock);
  EXPECT_EQ(r.bug->message,
            "the iteration reached 200 steps with 1 operation(s) still enabled and none finishing (--max-steps, "
            "--fail-on-max-steps)");
}
