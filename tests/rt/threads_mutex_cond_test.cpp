// pthread threads, mutexes and condition variables under control: outcomes,
// found bugs with their kinds, and the exact misuse messages.
#include <gtest/gtest.h>

#include <cerrno>

#include "programs/programs.h"
#include "rt/pthread_runtime.hpp"
#include "rt_test_support.hpp"

extern "C" void rt_check(int condition, const char* what) {
  if (condition == 0) heddle::assertion_failed(std::string("check failed: ") + what);
}

namespace {

using heddle::bug_kind;
using heddle::rt_test::expect_bug;
using heddle::rt_test::explore_quietly;

TEST(RtThreads, CreateJoinPassesResults) {
  int sum = 0;
  const auto r = explore_quietly([&] { sum = prog_create_join_result(); }, 50);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(sum, 60);
  EXPECT_EQ(r.stats.iterations, 50u);
}

TEST(RtThreads, OneCriticalSectionCountsEveryIncrement) {
  const auto r = explore_quietly([] { prog_counter(3, 1); }, 300);
  EXPECT_TRUE(r) << r.report;
}

TEST(RtThreads, SplitCriticalSectionLosesAnUpdate) {
  const auto r = explore_quietly([] { prog_counter(2, 0); }, 300);
  expect_bug(r, bug_kind::assertion, "every increment counted");
}

TEST(RtMutex, AbbaDeadlockIsFoundAndOrderedLocksPass) {
  const auto r = explore_quietly([] { prog_abba(0); }, 500);
  expect_bug(r, bug_kind::deadlock, "mutex");
  EXPECT_TRUE(explore_quietly([] { prog_abba(1); }, 500)) << "ordered locks";
}

// The misuse a mode of a program commits, as the report says it.
struct misuse_case {
  int (*program)(int mode);
  int mode;
  bug_kind kind;
  const char* message;
};

class RtMisuse : public testing::TestWithParam<misuse_case> {};

TEST_P(RtMisuse, IsReportedWithItsMessage) {
  const misuse_case c = GetParam();
  const auto r = explore_quietly([&] { c.program(c.mode); }, 20);
  expect_bug(r, c.kind, c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Mutex, RtMisuse,
    testing::Values(
        misuse_case{prog_mutex_misuse, 0, bug_kind::api_misuse, "pthread_mutex_unlock of a mutex that is not locked"},
        misuse_case{prog_mutex_misuse, 1, bug_kind::api_misuse,
                    "pthread_mutex_unlock of a mutex locked by operation 2, not by the caller (operation 1 (main))"},
        misuse_case{prog_mutex_misuse, 2, bug_kind::api_misuse,
                    "pthread_mutex_init of a mutex that is already initialized (double initialization"},
        misuse_case{prog_mutex_misuse, 3, bug_kind::api_misuse, "pthread_mutex_destroy of a mutex that is locked (by operation 1 (main))"},
        misuse_case{prog_mutex_misuse, 4, bug_kind::deadlock,
                    "pthread_mutex_lock of a mutex the caller (operation 1 (main)) already holds: self-deadlock"},
        misuse_case{prog_mutex_misuse, 6, bug_kind::api_misuse, "pthread_mutex_unlock of a mutex that is not locked"},
        misuse_case{prog_mutex_misuse, 7, bug_kind::api_misuse,
                    "pthread_cond_init of a condition variable that is already initialized"},
        misuse_case{prog_mutex_misuse, 9, bug_kind::api_misuse,
                    "pthread_cond_wait with a mutex the caller (operation 1 (main)) does not hold"}));

TEST(RtMutex, ErrorCheckingAndTryLockReturnCodes) {
  int relock = -1;
  int trylock = -1;
  const auto r = explore_quietly([&] {
    relock = prog_mutex_misuse(5);
    trylock = prog_mutex_misuse(8);
  }, 5);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(relock, EDEADLK);
  EXPECT_EQ(trylock, EBUSY);
}

INSTANTIATE_TEST_SUITE_P(
    Join, RtMisuse,
    testing::Values(misuse_case{prog_join_misuse, 0, bug_kind::api_misuse, "pthread_join of a thread that does not exist"},
                    misuse_case{prog_join_misuse, 1, bug_kind::api_misuse,
                                "pthread_join of a thread that was already joined (operation 2)"},
                    misuse_case{prog_join_misuse, 2, bug_kind::api_misuse, "pthread_join of a detached thread (operation 2)"}));

TEST(RtThreads, JoiningOneselfReturnsEdeadlk) {
  int rc = -1;
  const auto r = explore_quietly([&] { rc = prog_join_misuse(3); }, 5);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(rc, EDEADLK);
}

TEST(RtCond, LostWakeupIsADeadlockAndThePredicateLoopFixesIt) {
  const auto r = explore_quietly([] { prog_lost_wakeup(0); }, 300);
  expect_bug(r, bug_kind::deadlock, "condition_variable");
  EXPECT_TRUE(explore_quietly([] { prog_lost_wakeup(1); }, 300));
}

TEST(RtCond, DestroyingAConditionVariableWithWaitersIsMisuse) {
  const auto r = explore_quietly([] { prog_cond_destroy_waited(); }, 500);
  expect_bug(r, bug_kind::api_misuse, "pthread_cond_destroy of a condition variable that 1 thread(s) wait on");
}

TEST(RtCancel, CancelledWaiterRunsItsCleanupHandlersAndJoinSeesCanceled) {
  int ok = 0;
  const auto r = explore_quietly([&] {
    ok = prog_cleanup_cancel();
    rt_check(ok, "cancelled thread cleaned up");
  }, 300);
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(ok, 1);
}

TEST(RtThreads, PthreadExitRunsCleanupAndKeyDestructors) {
  int value = 0;
  const auto r = explore_quietly([&] { value = prog_exit_with_cleanup(); }, 50);
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(value, 42 + 10 + 7);
}

TEST(RtCancel, ACancelledJoinerStopsWaitingAndLeavesTheThreadJoinable) {
  int ok = 0;
  const auto r = explore_quietly([&] {
    ok = prog_cancel_joiner();
    rt_check(ok, "both cancelled, the sleeper joined after its joiner was cancelled");
  }, 300);
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(ok, 1);
}

TEST(RtThreads, PthreadExitInMainWaitsForTheOtherThreads) {
  int finished = 0;
  const auto r = explore_quietly([&] {
    finished = 0;
    heddle::rt::run_main_thread([&] { prog_main_exits(&finished); });
    rt_check(finished == 1, "the detached worker ran to its end");
  }, 100);
  EXPECT_TRUE(r) << r.report;
}

TEST(RtThreads, TryjoinAndTimedjoinEndBusyTimedOutOrJoined) {
  int ok = 0;
  const auto r = explore_quietly([&] {
    ok = prog_nonportable_joins();
    rt_check(ok, "each join variant gave a result it may give, and the thread's result arrived once");
  }, 200);
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(ok, 1);
}

TEST(RtMutex, LockingADestroyedMutexIsMisuse) {
  const auto r = explore_quietly([] { prog_lock_destroyed(); }, 3);
  expect_bug(r, bug_kind::api_misuse,
             "pthread_mutex_lock of a mutex that was destroyed (pthread_mutex_destroy) and not initialized again");
}

}  // namespace
