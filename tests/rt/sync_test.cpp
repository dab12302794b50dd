// rwlocks, barriers, once, semaphores, sleeps and timeouts on virtual time,
// spin locks, yielding spin loops, and C11 threads under control.
#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <string>

#include "programs/programs.h"
#include "rt_test_support.hpp"

namespace {

using heddle::bug_kind;
using heddle::rt_test::expect_bug;
using heddle::rt_test::explore_quietly;

TEST(RtRwlock, ReadLockUsedToWriteLosesAnUpdateAndWriteLockFixesIt) {
  const auto r = explore_quietly([] { prog_rwlock_counter(0); }, 500);
  expect_bug(r, bug_kind::assertion, "both increments counted");
  EXPECT_TRUE(explore_quietly([] { prog_rwlock_counter(1); }, 500));
}

TEST(RtRwlock, RecursiveReadsAndEdeadlk) {
  int reads = -1;
  int relock = -1;
  const auto r = explore_quietly([&] {
    reads = prog_rwlock_rules(0);
    relock = prog_rwlock_rules(1);
  }, 5);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(reads, 0);
  EXPECT_EQ(relock, EDEADLK);
}

TEST(RtRwlock, UnlockingARwlockNotHeldIsMisuse) {
  const auto r = explore_quietly([] { prog_rwlock_rules(2); }, 5);
  expect_bug(r, bug_kind::api_misuse, "pthread_rwlock_unlock of a rwlock the caller (operation 1 (main)) does not hold");
}

TEST(RtBarrier, RoundsSeeEverySlotAndOneSerialWaitPerRound) {
  int serial = 0;
  const auto r = explore_quietly([&] {
    serial = prog_barrier_rounds();
    rt_check(serial == 4, "one serial wait per round");
  }, 300);
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(serial, 4);
}

TEST(RtOnce, TheRoutineRunsOnceAndEveryCallerSeesItsEffect) {
  int runs = 0;
  const auto r = explore_quietly([&] {
    runs = prog_once();
    rt_check(runs == 1, "the routine ran once");
  }, 300);
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(runs, 1);
}

TEST(RtSemaphore, TwoFreeSlotsLetTheProducerOverwriteOneIsRight) {
  const auto r = explore_quietly([] { prog_bounded_buffer(2); }, 500);
  expect_bug(r, bug_kind::assertion, "items consumed in order");
  EXPECT_TRUE(explore_quietly([] { prog_bounded_buffer(1); }, 500));
}

TEST(RtTime, SleepsRunOnVirtualTime) {
  long long program_ns = -1;
  heddle::virtual_time virtual_ns = 0;
  const auto real_start = std::chrono::steady_clock::now();
  const auto r = explore_quietly([&] {
    program_ns = prog_sleeps();
    virtual_ns = heddle::now();
  }, 3);
  const auto real = std::chrono::steady_clock::now() - real_start;
  ASSERT_TRUE(r) << r.report;
  // Four hours and a second of sleeping passed on the virtual clock, which is
  // the clock the program reads (clock_gettime under control), and far less
  // than one hour on the real one.
  EXPECT_GE(virtual_ns, 4LL * 3600 * 1'000'000'000);
  EXPECT_GE(program_ns, 4LL * 3600 * 1'000'000'000);
  EXPECT_LT(real, std::chrono::hours(1));
}

TEST(RtTime, TimedWaitsNobodyEndsTimeOut) {
  int timed_out = 0;
  const auto r = explore_quietly([&] { timed_out = prog_timeouts(); }, 20);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(timed_out, 4);
}

TEST(RtSpin, SpinLockProtectsACounterAndRelockingIsASelfDeadlock) {
  EXPECT_TRUE(explore_quietly([] { prog_spin_counter(); }, 300));
  const auto r = explore_quietly([] { prog_spin_relock(); }, 3);
  expect_bug(r, bug_kind::deadlock, "pthread_spin_lock of a spin lock the caller (operation 1 (main)) already holds: "
                                "self-deadlock");
}

// A thread that spins on a flag with sched_yield or usleep lets the thread
// that sets it run, under every randomized strategy: no iteration ends at
// max_steps.
class RtYield : public testing::TestWithParam<const char*> {};

TEST_P(RtYield, ASpinLoopThatYieldsOrSleepsMakesProgress) {
  for (int use_sleep = 0; use_sleep <= 1; ++use_sleep) {
    heddle::options o;
    o.iterations = 100;
    o.strategy = GetParam();
    o.max_steps = 2000;
    o.fail_on_max_steps = true;
    o.print_report = false;
    o.out = "";
    const auto r = heddle::explore(o, [&] { prog_yield_spin(use_sleep); });
    EXPECT_TRUE(r) << GetParam() << " sleep=" << use_sleep << ": " << r.report;
  }
}

// Test names allow letters, digits and '_': pct:3 is named pct_3.
INSTANTIATE_TEST_SUITE_P(Strategies, RtYield, testing::Values("random", "pct:3", "pos", "portfolio"),
                         [](const testing::TestParamInfo<const char*>& p) {
                           std::string name = p.param;
                           for (char& c : name)
                             if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
                           return name;
                         });

TEST(RtC11, ThreadsMutexesOnceAndTss) {
  int value = 0;
  const auto r = explore_quietly([&] { value = prog_c11_threads(); }, 200);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(value, 3 + 300);
}

TEST(RtC11, LostWakeupOnACndIsADeadlock) {
  const auto r = explore_quietly([] { prog_c11_lost_wakeup(0); }, 300);
  expect_bug(r, bug_kind::deadlock, "condition_variable");
  EXPECT_TRUE(explore_quietly([] { prog_c11_lost_wakeup(1); }, 300));
}

}  // namespace
