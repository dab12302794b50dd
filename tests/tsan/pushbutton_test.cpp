// The memory-access programs of tests/pushbutton (lost update on a plain int,
// atomicity violation, Chase-Lev deque with a wrong memory order, a race that
// fails no assertion, two weak-memory bugs under rc11), run in process: each program, compiled with
// -fsanitize=thread and its main renamed pushbutton_<name>, is the body of an
// iteration. The buggy one must show the bug its "// expect:" line names within
// 10,000 iterations, under its "// heddle:" flags; the fixed twin must pass
// 1,000 iterations; the bug's trace must replay it 100 times out of 100. (The
// fork server's harness runs the same programs as processes.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "heddle/explore.hpp"

extern "C" int pushbutton_lost_update(void);
extern "C" int pushbutton_lost_update_fixed(void);
extern "C" int pushbutton_race_without_failure(void);
extern "C" int pushbutton_race_without_failure_fixed(void);
extern "C" int pushbutton_barrier_reuse(void);
extern "C" int pushbutton_barrier_reuse_fixed(void);
extern "C" int pushbutton_semaphore_buffer(void);
extern "C" int pushbutton_semaphore_buffer_fixed(void);
int pushbutton_atomicity_violation();
int pushbutton_atomicity_violation_fixed();
int pushbutton_chase_lev();
int pushbutton_chase_lev_fixed();
int pushbutton_wm_message_passing();
int pushbutton_wm_message_passing_fixed();
int pushbutton_wm_release_sequence();
int pushbutton_wm_release_sequence_fixed();

namespace {

struct program {
  const char* file;
  std::function<int()> buggy;
  std::function<int()> fixed;
};

struct expectation {
  heddle::bug_kind kind = heddle::bug_kind::assertion;
  std::string message;
  heddle::options options;
};

// "// expect: <kind> <substring>" and "// heddle: <flags>" from the program's head.
expectation read_expectation(const std::string& file) {
  std::ifstream in(std::string(TSAN_PUSHBUTTON_DIR) + "/" + file);
  expectation e;
  e.options.print_report = false;
  std::string line;
  while (std::getline(in, line) && line.starts_with("//")) {
    if (line.starts_with("// expect: ")) {
      const std::string rest = line.substr(11);
      const auto space = rest.find(' ');
      const auto kind = heddle::parse_bug_kind(rest.substr(0, space));
      if (!kind) ADD_FAILURE() << file << ": unknown bug kind in " << line;
      e.kind = kind.value_or(heddle::bug_kind::assertion);
      e.message = space == std::string::npos ? "" : rest.substr(space + 1);
    } else if (line.starts_with("// heddle: ")) {
      const std::string flags = line.substr(11);
      if (flags.find("--detect-races=false") != std::string::npos) e.options.detect_races = false;
      if (flags.find("--memory=all") != std::string::npos) e.options.memory = heddle::memory_policy::all;
      if (flags.find("--memory=none") != std::string::npos) e.options.memory = heddle::memory_policy::none;
      if (flags.find("--memory-model rc11") != std::string::npos) e.options.memory_model = heddle::memory_model::rc11;
    }
  }
  return e;
}

void check(const program& p) {
  const expectation e = read_expectation(p.file);
  // Named after the process too: another build tree may run the same test now.
  const std::string out = ::testing::TempDir() + "tsan_pushbutton_" + std::to_string(::getpid()) + "_" + p.file;
  std::filesystem::remove_all(out);

  heddle::options buggy = e.options;
  buggy.iterations = 10000;
  buggy.out = out;
  const auto found = heddle::explore(buggy, [&] { (void)p.buggy(); });
  ASSERT_TRUE(found.bug) << p.file << ": no bug in " << found.stats.iterations << " iterations";
  EXPECT_EQ(found.bug->kind, e.kind) << found.bug->message;
  EXPECT_NE(found.bug->message.find(e.message), std::string::npos) << found.bug->message;
  ASSERT_FALSE(found.trace_file.empty());

  heddle::options replay = e.options;
  replay.replay = found.trace_file;
  replay.out.clear();
  int reproduced = 0;
  for (int i = 0; i < 100; ++i) {
    const auto again = heddle::explore(replay, [&] { (void)p.buggy(); });
    reproduced += !again.divergence && again.bug && again.bug->kind == e.kind ? 1 : 0;
  }
  EXPECT_EQ(reproduced, 100) << p.file;

  heddle::options fixed = e.options;
  fixed.iterations = 1000;
  fixed.out.clear();
  const auto passed = heddle::explore(fixed, [&] { HEDDLE_ASSERT(p.fixed() == 0); });
  EXPECT_FALSE(passed.bug) << passed.report;
  EXPECT_EQ(passed.stats.iterations, 1000u);
  std::filesystem::remove_all(out);
}

}  // namespace

TEST(tsan_pushbutton, lost_update_on_a_plain_int) {
  check({"lost_update.c", pushbutton_lost_update, pushbutton_lost_update_fixed});
}

TEST(tsan_pushbutton, atomicity_violation_on_a_shared_struct) {
  check({"atomicity_violation.cpp", pushbutton_atomicity_violation, pushbutton_atomicity_violation_fixed});
}

TEST(tsan_pushbutton, chase_lev_deque_with_a_relaxed_publication) {
  check({"chase_lev.cpp", pushbutton_chase_lev, pushbutton_chase_lev_fixed});
}

TEST(tsan_pushbutton, data_race_reported_when_no_assertion_fails) {
  check({"race_without_failure.c", pushbutton_race_without_failure, pushbutton_race_without_failure_fixed});
}

TEST(tsan_pushbutton, barrier_reused_too_early) {
  check({"barrier_reuse.c", pushbutton_barrier_reuse, pushbutton_barrier_reuse_fixed});
}

TEST(tsan_pushbutton, semaphore_buffer_with_two_free_slots) {
  check({"semaphore_buffer.c", pushbutton_semaphore_buffer, pushbutton_semaphore_buffer_fixed});
}

// The weak-memory programs, as heddle test --memory-model rc11 runs an
// instrumented test binary: std::atomic through the ThreadSanitizer ABI reads
// stale values, and the race detector orders through the store a load read.
TEST(tsan_pushbutton, message_passing_with_a_relaxed_flag_under_rc11) {
  check({"wm_message_passing.cpp", pushbutton_wm_message_passing, pushbutton_wm_message_passing_fixed});
}

TEST(tsan_pushbutton, release_sequence_broken_by_a_relaxed_store_is_a_race_under_rc11) {
  check({"wm_release_sequence.cpp", pushbutton_wm_release_sequence, pushbutton_wm_release_sequence_fixed});
}

// barrier_reuse.c and semaphore_buffer.c expect their assertion, so they run
// with --detect-races=false: their bug is a real data race (the early writer
// and the late reader of one slot are not ordered), which the detector reports
// when it is on. Not in every failing schedule: when the consumer of
// semaphore_buffer.c takes its unit after both posts, the semaphore orders
// both writes before its read (it reads the second item without a race) and
// only the assertion fails. So the run explores on after the first bug and
// must find the race, named at the slot; the fixed twins pass, so the
// barrier's and the semaphores' happens-before edges order every access they
// protect.
namespace {

void expect_race_and_fixed_twin_passes(int (*buggy)(), int (*fixed)(), const std::string& where) {
  heddle::options o;
  o.print_report = false;
  o.out.clear();
  o.iterations = 2000;
  o.stop_on_first_bug = false;
  const auto found = heddle::explore(o, [&] { (void)buggy(); });
  ASSERT_TRUE(found.bug);
  const auto race = std::find_if(found.bugs.begin(), found.bugs.end(), [](const heddle::bug_group& g) {
    return g.bug.kind == heddle::bug_kind::data_race;
  });
  ASSERT_NE(race, found.bugs.end()) << found.bug->message;
  EXPECT_NE(race->bug.message.find(where), std::string::npos) << race->bug.message;
  o.iterations = 1000;
  const auto passed = heddle::explore(o, [&] { HEDDLE_ASSERT(fixed() == 0); });
  EXPECT_FALSE(passed.bug) << passed.report;
  EXPECT_EQ(passed.stats.iterations, 1000u);
}

}  // namespace

TEST(tsan_pushbutton, barrier_and_semaphore_programs_race_with_the_detector_on_and_twins_pass) {
  expect_race_and_fixed_twin_passes(pushbutton_barrier_reuse, pushbutton_barrier_reuse_fixed, "(slots+");
  expect_race_and_fixed_twin_passes(pushbutton_semaphore_buffer, pushbutton_semaphore_buffer_fixed, "(slot)");
}
