// pthread threads, mutexes and condition variables under control: outcomes,
// found bugs with their kinds, and the exact misuse messages.
#include <gtest/gtest.h>

#include <cerrno>
#include <ostream>
#include <string>

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

// The misuse a mode of a program commits, as the report says it; `name`
// names the test (Mutex/RtMisuse.IsReportedWithItsMessage/unlock_unlocked).
struct misuse_case {
  const char* name;
  int (*program)(int mode);
  int mode;
  bug_kind kind;
  const char* message;
};

// gtest prints a parameter in test lists and failures; without this, as bytes.
[[maybe_unused]] void PrintTo(const misuse_case& c, std::ostream* os) { *os << c.name; }

std::string misuse_name(const testing::TestParamInfo<misuse_case>& info) { return info.param.name; }

class RtMisuse : public testing::TestWithParam<misuse_case> {};

TEST_P(RtMisuse, IsReportedWithItsMessage) {
  const misuse_case c = GetParam();
  const auto r = explore_quietly([&] { c.program(c.mode); }, 20);
  expect_bug(r, c.kind, c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Mutex, RtMisuse,
    testing::Values(
        misuse_case{"unlock_unlocked", prog_mutex_misuse, 0, bug_kind::api_misuse, "pthread_mutex_unlock of a mutex that is not locked"},
        misuse_case{"unlock_by_non_owner", prog_mutex_misuse, 1, bug_kind::api_misuse,
                    "pthread_mutex_unlock of a mutex locked by operation 2, not by the caller (operation 1 (main))"},
        misuse_case{"mutex_double_init", prog_mutex_misuse, 2, bug_kind::api_misuse,
                    "pthread_mutex_init of a mutex that is already initialized (double initialization"},
        misuse_case{"destroy_locked", prog_mutex_misuse, 3, bug_kind::api_misuse, "pthread_mutex_destroy of a mutex that is locked (by operation 1 (main))"},
        misuse_case{"relock_normal", prog_mutex_misuse, 4, bug_kind::deadlock,
                    "pthread_mutex_lock of a mutex the caller (operation 1 (main)) already holds: self-deadlock"},
        misuse_case{"recursive_unlocked_once_too_often", prog_mutex_misuse, 6, bug_kind::api_misuse, "pthread_mutex_unlock of a mutex that is not locked"},
        misuse_case{"cond_double_init", prog_mutex_misuse, 7, bug_kind::api_misuse,
                    "pthread_cond_init of a condition variable that is already initialized"},
        misuse_case{"cond_wait_without_the_mutex", prog_mutex_misuse, 9, bug_kind::api_misuse,
                    "pthread_cond_wait with a mutex the caller (operation 1 (main)) does not hold"}),
    misuse_name);

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
    testing::Values(misuse_case{"join_nonexistent", prog_join_misuse, 0, bug_kind::api_misuse, "pthread_join of a thread that does not exist"},
                    misuse_case{"join_twice", prog_join_misuse, 1, bug_kind::api_misuse,
                                "pthread_join of a thread that was already joined (operation 2)"},
                    misuse_case{"join_detached", prog_join_misuse, 2, bug_kind::api_misuse, "pthread_join of a detached thread (operation 2)"}),
    misuse_name);

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

// POSIX cancellation points beyond condition waits and joins: a thread
// blocked in a semaphore wait or a sleep is cancelled, runs its cleanup
// handler, and its joiner sees PTHREAD_CANCELED. (A semaphore nobody posts
// would otherwise be a deadlock, an hour's sleep an hour of virtual time.)
class RtCancelPoint : public testing::TestWithParam<int> {};

TEST_P(RtCancelPoint, ABlockedThreadIsCancelledAndCleansUp) {
  int ok = 0;
  const auto r = explore_quietly([&] {
    ok = prog_cancel_blocked(GetParam());
    rt_check(ok, "the blocked thread was cancelled, cleaned up, and left the semaphore's count alone");
  }, 200);
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(ok, 1);
}

// prog_cancel_blocked's `where`, by name.
std::string blocking_call(const testing::TestParamInfo<int>& info) {
  static const char* const names[] = {"sem_wait",  "sem_timedwait",   "sleep", "usleep",
                                      "nanosleep", "clock_nanosleep", "clock_nanosleep_abstime"};
  return names[info.param];
}

INSTANTIATE_TEST_SUITE_P(Blocked, RtCancelPoint, testing::Range(0, 7), blocking_call);

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
