// The OS-thread backend (src/backends/thread_backend.hpp) through explore():
// each operation is a real thread with its own thread_local and errno, threads
// are reused across iterations and runs, iterations pin to one CPU and restore
// the affinity, unwinding runs destructors, and an overflow is reported; the
// fork server's mode where the scheduler thread runs the first operation.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <set>

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "backends/thread_backend.hpp"
#include "engine/engine.hpp"
#include "heddle/heddle.hpp"

namespace {

heddle::options on_threads(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  o.backend = "threads";
  return o;
}

thread_local int per_thread = 0;

TEST(thread_backend, every_operation_has_its_own_thread_local_and_errno) {
  bool clash = false;
  const auto r = heddle::explore(on_threads({.iterations = 200, .strategy = "random"}), [&] {
    per_thread = 1;
    errno = 11;
    heddle::thread t([&] {
      clash = clash || per_thread != 0;  // a fresh operation sees its own copy
      per_thread = 2;
      errno = 22;
      heddle::this_thread::yield();
      clash = clash || per_thread != 2 || errno != 22;
      per_thread = 0;
    });
    heddle::this_thread::yield();
    clash = clash || per_thread != 1 || errno != 11;
    t.join();
    clash = clash || per_thread != 1 || errno != 11;
    per_thread = 0;
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_FALSE(clash);
  EXPECT_EQ(r.stats.iterations, 200u);
}

TEST(thread_backend, operations_run_on_other_threads_reused_across_iterations_and_runs) {
  std::set<pthread_t> seen;
  const pthread_t self = ::pthread_self();
  const auto body = [&] {
    seen.insert(::pthread_self());
    heddle::thread t([&] { seen.insert(::pthread_self()); });
    t.join();
  };
  (void)heddle::explore(on_threads({.iterations = 50}), body);
  (void)heddle::explore(on_threads({.iterations = 50}), body);
  EXPECT_EQ(seen.count(self), 0u);
  EXPECT_GE(seen.size(), 2u);
  EXPECT_LE(seen.size(), 4u) << "threads are pooled, not created per iteration";
}

TEST(thread_backend, an_iteration_runs_on_one_cpu_and_the_affinity_is_restored) {
  cpu_set_t before;
  ASSERT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
  std::set<int> counts;
  (void)heddle::explore(on_threads({.iterations = 20}), [&] {
    cpu_set_t mine;
    ::sched_getaffinity(0, sizeof mine, &mine);
    counts.insert(CPU_COUNT(&mine));
    heddle::thread t([&] {
      cpu_set_t theirs;
      ::sched_getaffinity(0, sizeof theirs, &theirs);
      counts.insert(CPU_COUNT(&theirs));
    });
    t.join();
  });
  EXPECT_EQ(counts, std::set<int>{1});
  cpu_set_t after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(thread_backend, an_operation_may_make_a_real_blocking_call) {
  const auto r = heddle::explore(on_threads({.iterations = 20}), [] {
    heddle::thread t([] { ::usleep(100); });
    ::usleep(100);
    t.join();
  });
  EXPECT_FALSE(r.bug) << r.report;
}

TEST(thread_backend, a_deadlock_unwinds_the_blocked_threads_and_runs_their_destructors) {
  int destroyed = 0;
  struct counted {
    int& n;
    ~counted() { ++n; }
  };
  const auto r = heddle::explore(on_threads({.iterations = 500}), [&] {
    heddle::mutex a, b;
    heddle::thread t([&] {
      counted c{destroyed};
      std::scoped_lock l1(b);
      std::scoped_lock l2(a);
    });
    {
      counted c{destroyed};
      std::scoped_lock l1(a);
      std::scoped_lock l2(b);
    }
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("waits for mutex"), std::string::npos) << r.bug->message;
  // Every iteration destroys both guards, the deadlocked one while unwinding.
  EXPECT_EQ(destroyed, 2 * static_cast<int>(r.stats.iterations));
}

TEST(thread_backend, a_bad_backend_name_is_one_clear_error) {
  ::setenv("HEDDLE_BACKEND", "green", 1);
  try {
    (void)heddle::explore({.iterations = 1, .print_report = false, .out = ""}, [] {});
    ADD_FAILURE() << "no error";
  } catch (const heddle::usage_error& e) {
    EXPECT_STREQ(e.what(), "bad value 'green' for HEDDLE_BACKEND: expected fibers or threads");
  }
  ::unsetenv("HEDDLE_BACKEND");
}

TEST(thread_backend_death, stack_overflow_on_an_operation_thread_is_reported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        struct recurse {
          static int deep(int n) {
            volatile char pad[512];
            pad[0] = static_cast<char>(n);
            return n == 0 ? pad[0] : deep(n - 1) + pad[0];
          }
        };
        (void)heddle::explore({.iterations = 1, .stack_size = 64 * 1024, .print_report = false, .out = "",
                               .backend = "threads"},
                              [] {
                                heddle::thread t([] { (void)recurse::deep(1 << 20); });
                                t.join();
                              });
      },
      testing::KilledBySignal(SIGSEGV), "stack_overflow: stack overflow in operation 2");
}

// run_first_operation_here (the fork server's child): operation 1 runs on the
// thread that called engine::run, with that thread's thread_local values; the
// others on pool threads; the end of the iteration calls the hook on the
// thread that ends it, which ends the process.
pid_t scheduler_tid = 0;
thread_local int set_before_run = 0;
bool first_here = false, second_elsewhere = false, ended_by_second = false;

TEST(thread_backend_death, the_first_operation_can_run_on_the_scheduler_thread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        heddle::detail::thread_backend threads(256 * 1024);
        heddle::detail::engine e(threads, {.max_steps = 1000});
        scheduler_tid = ::gettid();
        set_before_run = 42;
        threads.on_scheduler_resumed(
            [](void*) {
              std::fprintf(stderr, "ended: first here %d, second elsewhere %d, ended by the second %d\n",
                           first_here, second_elsewhere, ended_by_second);
              std::_Exit(first_here && second_elsewhere && ended_by_second ? 7 : 1);
            },
            nullptr);
        threads.run_first_operation_here();
        const auto s = heddle::detail::make_strategy("random");
        s->begin_iteration(0, 1);
        const std::function<void()> body = [] {
          first_here = ::gettid() == scheduler_tid && set_before_run == 42;
          heddle::thread t([] {
            second_elsewhere = ::gettid() != scheduler_tid && set_before_run == 0;
            for (int i = 0; i < 5; ++i) heddle::this_thread::yield();
            ended_by_second = true;  // main finishes first: the second ends the iteration
          });
          t.detach();
        };
        (void)e.run(*s, body);
        std::fprintf(stderr, "engine::run returned\n");
        std::_Exit(2);
      },
      testing::ExitedWithCode(7), "ended: first here 1, second elsewhere 1, ended by the second 1");
}

}  // namespace
