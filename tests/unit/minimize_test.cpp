// Trace minimization (src/runner/minimize.hpp): the minimized trace keeps the
// bug, has the fewest preemptions delta debugging finds (exactly the known
// minimum on small programs), takes no spurious or noisy data choice it does
// not need, replays exactly; a crash is minimized with each candidate in a
// process of its own; traces that do not replay are left as they are; and on the whole bug suite no minimized trace has more preemptions
// than its original.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "backends/fiber_backend.hpp"
#include "heddle/heddle.hpp"
#include "programs.hpp"
#include "runner/minimize.hpp"
#include "runner/saved_bug.hpp"
#include "runner/timeline.hpp"
#include "strategies/guided.hpp"
#include "strategies/strategies.hpp"

namespace {

using heddle::detail::minimize;
using heddle::detail::minimization;
using heddle::detail::same_bug;

heddle::options quiet(std::string strategy, std::uint64_t iterations) {
  return {.iterations = iterations, .strategy = std::move(strategy), .print_report = false, .out = ""};
}

// Two incrementers that read, then write, an atomic counter; two bystanders
// that touch atomics of their own, so a random schedule preempts often.
// Returns the counter: 2 unless an update was lost.
int noisy_increments() {
  heddle::atomic<int> counter{0};
  heddle::atomic<int> noise_a{0}, noise_b{0};
  auto bump = [&] {
    const int seen = counter.load();
    counter.store(seen + 1);
  };
  auto chatter = [](heddle::atomic<int>& own) {
    for (int i = 0; i < 6; ++i) own.fetch_add(1);
  };
  heddle::thread a(bump), b(bump);
  heddle::thread x([&] { chatter(noise_a); }), y([&] { chatter(noise_b); });
  a.join();
  b.join();
  x.join();
  y.join();
  return counter.load();
}

void noisy_lost_update() {
  const int counter = noisy_increments();
  HEDDLE_ASSERT(counter == 2);
}

// Fails when the first choice is true; eight more choices are noise.
void one_choice_matters() {
  const bool bad = heddle::choose_bool();
  int noise = 0;
  for (int i = 0; i < 8; ++i) noise += heddle::choose_bool() ? 1 : 0;
  HEDDLE_ASSERT_MSG(!bad, "the first choice was true");
}

// Replays `t` from a file, as `heddle replay` makes a test binary do.
heddle::result replay(const heddle::trace& t, void (*body)(), const std::string& test) {
  const std::string path = testing::TempDir() + "/minimize_test_" + test + ".json";
  std::ofstream(path) << heddle::to_json(t);
  heddle::options o = quiet("random", 1);
  o.replay = path;
  heddle::result r = heddle::explore(o, body, {.test = test});
  std::remove(path.c_str());
  return r;
}

std::size_t nonzero_choices(const heddle::trace& t) {
  return static_cast<std::size_t>(std::count_if(t.steps.begin(), t.steps.end(), [](const heddle::trace_step& s) {
    return s.kind != heddle::step_kind::schedule && s.value != 0;
  }));
}

TEST(minimize, lost_update_needs_exactly_one_preemption) {
  const heddle::result found = heddle::explore(quiet("random", 10'000), noisy_lost_update, {.test = "m.lost"});
  ASSERT_TRUE(found.bug);
  const minimization m = minimize(noisy_lost_update, found.trace);
  ASSERT_TRUE(m.minimized) << m.reason;
  EXPECT_GT(m.original.preemptions, 1u);
  EXPECT_EQ(m.best.preemptions, 1u);
  EXPECT_LE(m.best.trace.steps.size(), found.trace.steps.size());
  ASSERT_TRUE(m.best.trace.found);
  EXPECT_EQ(m.best.trace.found->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(m.best.trace.found->message, "assertion failed: counter == 2");
  EXPECT_EQ(m.best.trace.header, found.trace.header);

  const heddle::result again = replay(m.best.trace, noisy_lost_update, "m.lost");
  ASSERT_TRUE(again.bug) << again.divergence.value_or("no divergence either");
  EXPECT_FALSE(again.divergence);
  EXPECT_EQ(again.trace.steps, m.best.trace.steps);
  EXPECT_EQ(again.bug->signature(), m.best.trace.found->signature());
}

TEST(minimize, noise_choices_go_back_to_zero) {
  const heddle::result found = heddle::explore(quiet("random", 1000), one_choice_matters, {.test = "m.choice"});
  ASSERT_TRUE(found.bug);
  ASSERT_GT(nonzero_choices(found.trace), 1u);
  const minimization m = minimize(one_choice_matters, found.trace);
  ASSERT_TRUE(m.minimized) << m.reason;
  EXPECT_EQ(nonzero_choices(m.best.trace), 1u);
  ASSERT_GE(m.best.trace.steps.size(), 2u);
  EXPECT_EQ(m.best.trace.steps[1].kind, heddle::step_kind::choose_bool);
  EXPECT_EQ(m.best.trace.steps[1].value, 1u);
  EXPECT_EQ(m.best.trace.found->message, "the first choice was true");
  EXPECT_TRUE(replay(m.best.trace, one_choice_matters, "m.choice").bug);
}

TEST(minimize, is_deterministic) {
  const heddle::result found = heddle::explore(quiet("random", 10'000), noisy_lost_update, {.test = "m.lost"});
  ASSERT_TRUE(found.bug);
  const minimization first = minimize(noisy_lost_update, found.trace);
  const minimization second = minimize(noisy_lost_update, found.trace);
  EXPECT_EQ(first.best.trace, second.best.trace);
  EXPECT_EQ(first.runs, second.runs);
}

TEST(minimize, a_budget_of_one_run_keeps_the_original) {
  const heddle::result found = heddle::explore(quiet("random", 10'000), noisy_lost_update, {.test = "m.lost"});
  ASSERT_TRUE(found.bug);
  const minimization m = minimize(noisy_lost_update, found.trace, {.max_runs = 1});
  EXPECT_EQ(m.runs, 1u);
  EXPECT_EQ(m.best.trace, found.trace);
  EXPECT_EQ(m.best.preemptions, m.original.preemptions);
}

TEST(minimize, leaves_crashes_and_traces_that_do_not_replay_alone) {
  const heddle::result found = heddle::explore(quiet("random", 10'000), noisy_lost_update, {.test = "m.lost"});
  ASSERT_TRUE(found.bug);

  // Said to crash, but it replays to an assertion (in a process of its own).
  heddle::trace crashed = found.trace;
  crashed.found->kind = heddle::bug_kind::crash;
  const minimization c = minimize(noisy_lost_update, crashed);
  EXPECT_FALSE(c.minimized);
  EXPECT_NE(c.reason.find("does not replay exactly"), std::string::npos) << c.reason;
  EXPECT_EQ(c.best.trace, crashed);
  EXPECT_EQ(c.runs, 1u);

  heddle::trace other_bug = found.trace;
  other_bug.found->message = "a different assertion";
  const minimization d = minimize(noisy_lost_update, other_bug);
  EXPECT_FALSE(d.minimized);
  EXPECT_NE(d.reason.find("does not replay exactly"), std::string::npos) << d.reason;
  EXPECT_EQ(d.best.trace, other_bug);

  heddle::trace no_bug = found.trace;
  no_bug.found.reset();
  EXPECT_NE(minimize(noisy_lost_update, no_bug).reason.find("no bug"), std::string::npos);
}

// noisy_lost_update, but the lost update ends in a null-pointer write.
void noisy_lost_update_crashes() {
  if (noisy_increments() != 2) {
    volatile int* volatile nowhere = nullptr;  // both volatile: g++ drops a plain store through it
    *nowhere = 1;
  }
}

TEST(minimize, a_crash_found_by_a_worker_is_minimized_in_processes_of_its_own) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / fmt::format("heddle-minimize-crash-{}", ::getpid());
  std::filesystem::remove_all(out);
  const heddle::result r = heddle::explore(
      {.iterations = 10'000, .strategy = "random", .print_report = false, .out = out.string(), .parallel = 1},
      noisy_lost_update_crashes, {.test = "m.crash"});
  ASSERT_TRUE(r.bug) << r.stats.iterations << " iterations; " << r.stats.buggy_iterations << " buggy";
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::crash);
  EXPECT_NE(r.bug->message.find("SIGSEGV"), std::string::npos) << r.bug->message;
  // The lost update needs one preemption; the report says how far it came down.
  const heddle::trace saved = heddle::load_trace(r.trace_file);
  ASSERT_TRUE(saved.found);
  EXPECT_EQ(saved.found->kind, heddle::bug_kind::crash);
  EXPECT_NE(r.bugs[0].report.find("minimized: "), std::string::npos) << r.bugs[0].report;
  EXPECT_NE(r.bugs[0].report.find(" -> 1 preemptions"), std::string::npos) << r.bugs[0].report;
  EXPECT_LE(saved.steps.size(), r.bugs[0].trace.steps.size());

  // Minimizing the original directly gives the same, and says so in its numbers.
  const minimization m = minimize(noisy_lost_update_crashes, r.bugs[0].trace);
  ASSERT_TRUE(m.minimized) << m.reason;
  EXPECT_EQ(m.best.preemptions, 1u);
  EXPECT_GE(m.original.preemptions, m.best.preemptions);
  EXPECT_EQ(m.best.trace, saved);

  // The minimized trace leads to the same segfault when replayed (in a child: it crashes).
  EXPECT_EXIT((void)heddle::explore({.print_report = false, .out = "", .replay = r.trace_file},
                                    noisy_lost_update_crashes, {.test = "m.crash"}),
              ::testing::KilledBySignal(SIGSEGV), "SIGSEGV");
  std::filesystem::remove_all(out);
}

TEST(minimize, same_bug_masks_ids_and_ignores_where_a_deadlock_was_noticed) {
  heddle::bug a{.kind = heddle::bug_kind::deadlock,
                .message = "operation 2 (t) waits for mutex #3 held by operation 1 (main)",
                .where = {"x.cpp", 10, "f"}};
  heddle::bug b = a;
  b.message = "operation 3 (t) waits for mutex #4 held by operation 1 (main)";
  b.where.line = 20;
  EXPECT_TRUE(same_bug(a, b));
  b.message = "operation 3 (t) waits for condition_variable #4";
  EXPECT_FALSE(same_bug(a, b));

  heddle::bug x{.kind = heddle::bug_kind::assertion, .message = "assertion failed: n == 2", .where = {"x.cpp", 10, "f"}};
  heddle::bug y = x;
  EXPECT_TRUE(same_bug(x, y));
  y.where.line = 11;
  EXPECT_FALSE(same_bug(x, y));
  y = x;
  y.kind = heddle::bug_kind::api_misuse;
  EXPECT_FALSE(same_bug(x, y));
}

// Fails when main's two reads of `x` differ (one preemption); when
// `misbehave` says so, the schedule without that preemption crashes or hangs,
// as a use-after-free or a spin without a scheduling point would.
enum class misbehaviour { none, crash, hang };
misbehaviour misbehave = misbehaviour::none;
void reads_differ() {
  heddle::atomic<int> x{0};
  heddle::thread t([&] { x.store(1); });
  const int a = x.load();
  const int b = x.load();
  t.join();
  if (a == b && misbehave == misbehaviour::crash) std::abort();
  if (a == b && misbehave == misbehaviour::hang) {
    std::atomic<bool> forever{true};  // a real atomic: no scheduling point
    while (forever.load()) {
    }
  }
  HEDDLE_ASSERT_MSG(a == b, "x changed between two reads");
}

heddle::detail::finalized_bug finalize(const heddle::trace& t, const heddle::detail::minimize_limits& limits) {
  heddle::detail::fiber_backend fibers(256 * 1024);
  heddle::detail::engine engine(fibers, {});
  heddle::detail::replay_strategy replay(t.steps);
  replay.begin_iteration(0, 0);
  return heddle::detail::finalize_bug(reads_differ, t, engine.run(replay, reads_differ), limits);
}

TEST(minimize, a_candidate_that_crashes_or_hangs_costs_the_minimization_not_the_run) {
  misbehave = misbehaviour::none;
  const heddle::result found = heddle::explore(quiet("random", 10'000), reads_differ, {.test = "m.reads"});
  ASSERT_TRUE(found.bug);

  const heddle::detail::finalized_bug fine = finalize(found.trace, {});
  EXPECT_TRUE(fine.minimized) << fine.reason;
  ASSERT_EQ(fine.timelines().size(), 2u);
  EXPECT_EQ(fine.timelines()[1].preemptions, 1u);
  EXPECT_EQ(fine.saved, fine.timelines()[1].trace);
  EXPECT_GT(fine.runs, 0u);

  misbehave = misbehaviour::crash;
  const heddle::detail::finalized_bug crashed = finalize(found.trace, {});
  misbehave = misbehaviour::none;
  EXPECT_FALSE(crashed.minimized);
  EXPECT_NE(crashed.reason.find("a candidate schedule crashed the minimizer (signal 6)"), std::string::npos)
      << crashed.reason;
  EXPECT_EQ(crashed.saved, found.trace);
  ASSERT_EQ(crashed.timelines().size(), 1u);
  EXPECT_TRUE(crashed.timelines()[0].annotated);
  EXPECT_EQ(heddle::trace_from_json(crashed.file_text()), found.trace);

  misbehave = misbehaviour::hang;
  const heddle::detail::finalized_bug hung =
      finalize(found.trace, {.time_limit = std::chrono::milliseconds(50), .grace = std::chrono::milliseconds(200)});
  misbehave = misbehaviour::none;
  EXPECT_FALSE(hung.minimized);
  EXPECT_NE(hung.reason.find("ran out of time"), std::string::npos) << hung.reason;
  EXPECT_EQ(hung.saved, found.trace);
}

// The acceptance check of issue 5 on the bug suite: the first bug of every
// program, minimized, has no more preemptions than the original (with as many, no more steps),
// the same bug, and replays exactly.
TEST(minimize, bug_suite_minimized_traces_are_no_worse_and_replay) {
  for (const heddle_bugs::program& p : heddle_bugs::all_programs()) {
    SCOPED_TRACE(std::string(p.name));
    const heddle::options o = heddle_bugs::options_for(p, p.strategy, p.iterations);
    const heddle::result found = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
    ASSERT_TRUE(found.bug);
    const minimization m = minimize(p.buggy, found.trace);
    ASSERT_TRUE(m.minimized) << m.reason;
    EXPECT_LE(m.best.preemptions, m.original.preemptions);
    if (m.best.preemptions == m.original.preemptions) {
      EXPECT_LE(m.best.trace.steps.size(), found.trace.steps.size());
    }
    ASSERT_TRUE(m.best.trace.found);
    EXPECT_TRUE(same_bug(*m.best.trace.found, *found.bug));
    EXPECT_EQ(m.best.trace.found->kind, p.kind);
    EXPECT_NE(m.best.trace.found->message.find(p.message), std::string::npos) << m.best.trace.found->message;
    const heddle::result again = replay(m.best.trace, p.buggy, heddle_bugs::identity_of(p).test);
    ASSERT_TRUE(again.bug) << again.divergence.value_or("");
    EXPECT_EQ(again.trace.steps, m.best.trace.steps);
    EXPECT_EQ(again.bug->signature(), m.best.trace.found->signature());
  }
}

}  // namespace

namespace {

// The runner end to end: explore() saves the minimized trace, with the
// original inside and an HTML report next to it, and its report says so.
TEST(minimize, explore_saves_the_minimized_trace_with_the_original_and_an_html_report) {
  const std::string out = testing::TempDir() + "/minimize_explore";
  std::filesystem::remove_all(out);
  heddle::options o = quiet("random", 10'000);
  o.out = out;
  const heddle::result r = heddle::explore(o, noisy_lost_update, {.test = "m.saved"});
  ASSERT_TRUE(r.bug);
  ASSERT_FALSE(r.trace_file.empty());
  const std::vector<heddle::detail::timeline> saved = heddle::detail::load_timelines(r.trace_file);
  ASSERT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved[0].trace, r.trace);
  EXPECT_EQ(saved[1].trace, r.minimized_trace);
  EXPECT_EQ(heddle::load_trace(r.trace_file), r.minimized_trace);  // what replay reads
  EXPECT_EQ(saved[1].preemptions, 1u);
  EXPECT_GT(*saved[0].preemptions, 1u);
  const std::string html = r.trace_file.substr(0, r.trace_file.size() - 5) + ".html";
  EXPECT_TRUE(std::filesystem::exists(html)) << html;
  EXPECT_NE(r.report.find(fmt::format("minimized: {} -> 1 preemptions", *saved[0].preemptions)), std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("html:   " + html), std::string::npos) << r.report;

  heddle::options again = quiet("random", 1);
  again.replay = r.trace_file;
  const heddle::result replayed = heddle::explore(again, noisy_lost_update, {.test = "m.saved"});
  ASSERT_TRUE(replayed.bug) << replayed.divergence.value_or("");
  EXPECT_EQ(replayed.trace.steps, r.minimized_trace.steps);

  std::filesystem::remove_all(out);
}

TEST(minimize, off_saves_the_trace_as_found) {
  const std::string out = testing::TempDir() + "/minimize_off";
  std::filesystem::remove_all(out);
  heddle::options o = quiet("random", 10'000);
  o.out = out;
  o.minimize = false;
  const heddle::result r = heddle::explore(o, noisy_lost_update, {.test = "m.off"});
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.minimized_trace, r.trace);
  EXPECT_EQ(heddle::load_trace(r.trace_file), r.trace);
  EXPECT_EQ(heddle::detail::load_timelines(r.trace_file).size(), 1u);
  EXPECT_EQ(r.report.find("minimized:"), std::string::npos) << r.report;

  // The same from the environment, as `heddle test --no-minimize` passes it on.
  ::setenv("HEDDLE_MINIMIZE", "0", 1);
  heddle::options from_env = quiet("random", 10'000);
  const heddle::result e = heddle::explore(from_env, noisy_lost_update, {.test = "m.off"});
  ::unsetenv("HEDDLE_MINIMIZE");
  ASSERT_TRUE(e.bug);
  EXPECT_EQ(e.minimized_trace, e.trace);
  std::filesystem::remove_all(out);
}

}  // namespace

// The minimizer's strategy past its prefix runs the current operation on,
// else the next one that does not wait. When every enabled operation waits
// (push-button: sched_yield and a spin on loads are zero sleeps), the current
// one included, it takes the next in id order, wrapping around, so that two
// loops that wait for each other take turns; it used to keep the current one,
// whose loop then ran alone to the step limit and failed the attempt.
TEST(minimize, guided_lets_operations_that_all_wait_take_turns) {
  using heddle::point_kind;
  using heddle::detail::decision_context;
  using heddle::detail::pending_operation;
  heddle::detail::guided_strategy s(heddle::detail::guide{});
  s.begin_iteration(0, 0);
  const auto pick = [&](const std::vector<pending_operation>& enabled, heddle::operation_id current) {
    const decision_context ctx{enabled, current, 0, 3, 0, false};
    return enabled.at(s.next_operation(ctx)).id;
  };
  const std::vector<pending_operation> all_sleep = {{1, 1, 0, point_kind::sleep, 0, false},
                                                    {2, 2, 1, point_kind::sleep, 0, false},
                                                    {3, 3, 1, point_kind::sleep, 0, false}};
  EXPECT_EQ(pick(all_sleep, 2), 3u);
  EXPECT_EQ(pick(all_sleep, 3), 1u);
  EXPECT_EQ(pick(all_sleep, 1), 2u);
  // One that does not wait goes first; the current one runs on when it does not wait.
  const std::vector<pending_operation> one_runs = {{1, 1, 0, point_kind::sleep, 0, false},
                                                   {2, 2, 1, point_kind::write, 0, false},
                                                   {3, 3, 1, point_kind::sleep, 0, false}};
  EXPECT_EQ(pick(one_runs, 3), 2u);
  EXPECT_EQ(pick(one_runs, 2), 2u);
}
