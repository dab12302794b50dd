// Worker processes (options::parallel): crash isolation, replacement, hangs,
// outside kills, and that results match an in-process run.
#include <csignal>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heddle/heddle.hpp"
#include "runner/statistics.hpp"

namespace {

namespace fs = std::filesystem;

// A counter the workers (forked children) and the test share.
std::atomic<std::uint64_t>& shared_counter() {
  static auto* counter = [] {
    void* memory = ::mmap(nullptr, sizeof(std::atomic<std::uint64_t>), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return new (memory) std::atomic<std::uint64_t>(0);
  }();
  return *counter;
}

struct scratch_directory {
  fs::path path;
  scratch_directory() {
    path = fs::temp_directory_path() / ("heddle-runner-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
  }
  ~scratch_directory() { fs::remove_all(path); }
};

// Two operations race; in about one iteration of 100 (a data choice) the
// writer goes through a null pointer.
void sometimes_segfaults() {
  int value = 0;
  heddle::thread writer([&] { value = 1; });
  if (heddle::choose_int(100) == 7) {
    int* volatile nowhere = nullptr;
    *nowhere = value;
  }
  writer.join();
}

std::set<std::uint64_t> indices_of(const heddle::result& r) {
  std::set<std::uint64_t> seen;
  for (const heddle::iteration_record& i : r.iterations) EXPECT_TRUE(seen.insert(i.index).second) << i.index;
  return seen;
}

std::set<std::uint64_t> up_to(std::uint64_t n) {
  std::set<std::uint64_t> all;
  for (std::uint64_t i = 0; i < n; ++i) all.insert(i);
  return all;
}

TEST(runner_workers, segfault_in_one_of_100_iterations_is_a_crash_with_a_trace_and_the_run_completes) {
  scratch_directory out;
  const heddle::result r = heddle::explore({.iterations = 400, .strategy = "random", .stop_on_first_bug = false,
                                            .print_report = false, .out = out.path.string(), .parallel = 2,
                                            .record_iterations = true},
                                           sometimes_segfaults, {"runner.segfault", ""});
  EXPECT_EQ(r.stats.iterations, 400u);
  EXPECT_EQ(indices_of(r), up_to(400));
  ASSERT_TRUE(r.bug);
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::crash);
  EXPECT_NE(r.bug->message.find("SIGSEGV"), std::string::npos) << r.bug->message;
  EXPECT_EQ(r.bugs[0].count, r.stats.buggy_iterations);
  EXPECT_GE(r.bugs[0].count, 1u);
  EXPECT_GE(r.stats.workers_replaced, r.bugs[0].count);
  ASSERT_TRUE(fs::exists(r.trace_file)) << r.trace_file;
  const heddle::trace saved = heddle::load_trace(r.trace_file);
  EXPECT_EQ(saved.header.iteration, r.bugs[0].first_iteration);
  ASSERT_TRUE(saved.found);
  EXPECT_EQ(saved.found->kind, heddle::bug_kind::crash);
  // The saved trace leads to the same segfault when replayed (in a child: it crashes).
  EXPECT_EXIT((void)heddle::explore({.print_report = false, .out = "", .replay = r.trace_file}, sometimes_segfaults,
                                    {"runner.segfault", ""}),
              ::testing::KilledBySignal(SIGSEGV), "SIGSEGV");
}

TEST(runner_workers, sigkill_of_a_worker_loses_no_iteration_and_the_summary_is_complete) {
  shared_counter() = 0;
  const heddle::result r = heddle::explore(
      {.iterations = 1500, .strategy = "random", .print_report = false, .out = "", .parallel = 2,
       .record_iterations = true},
      [] {
        int value = 0;
        heddle::thread t([&] { value = 1; });
        t.join();
        // The 600th iteration started anywhere: its worker is killed from outside.
        if (shared_counter().fetch_add(1) == 600) ::kill(::getpid(), SIGKILL);
      },
      {"runner.sigkill", ""});
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(r.stats.iterations, 1500u);
  EXPECT_EQ(indices_of(r), up_to(1500));
  EXPECT_EQ(r.stats.workers, 2u);
  EXPECT_EQ(r.stats.workers_replaced, 1u);
}

std::map<std::uint64_t, std::uint64_t> schedules_of(const heddle::result& r) {
  std::map<std::uint64_t, std::uint64_t> by_index;
  for (const heddle::iteration_record& i : r.iterations) by_index[i.index] = i.schedule_hash;
  return by_index;
}

// A worker killed from outside under a strategy that learns: its replacement
// re-runs the earlier iterations of the window for the strategy to learn
// them, so every iteration has the schedule it has in one process.
TEST(runner_workers, sigkill_under_a_learning_strategy_keeps_every_schedule_of_one_process) {
  static const pid_t test_process = ::getpid();
  const auto body = [] {
    heddle::atomic<int> value{0};
    // Long enough (about 130 steps) that pct's change points, drawn over the
    // step count it learned, differ from a fresh strategy's (drawn over 32).
    const auto work = [&] {
      for (int k = 0; k < 40; ++k) value.fetch_add(1);
    };
    heddle::thread t(work);
    heddle::thread u(work);
    heddle::thread v(work);
    t.join();
    u.join();
    v.join();
    if (::getpid() != test_process && shared_counter().fetch_add(1) == 150) ::kill(::getpid(), SIGKILL);
  };
  heddle::options o{.iterations = 400, .strategy = "pct:3", .print_report = false, .out = "",
                    .record_iterations = true};
  const heddle::result here = heddle::explore(o, body, {"runner.sigkill_learning", ""});
  shared_counter() = 0;
  o.parallel = 2;
  const heddle::result there = heddle::explore(o, body, {"runner.sigkill_learning", ""});
  EXPECT_EQ(there.stats.workers_replaced, 1u);
  EXPECT_EQ(schedules_of(there), schedules_of(here));
}

// A crash ends its worker and its learning window: the replacement goes on
// with a fresh strategy at the next index, so any number of workers runs the
// same schedules.
TEST(runner_workers, crashes_under_a_learning_strategy_give_the_same_schedules_with_2_and_4_workers) {
  heddle::options o{.iterations = 1000, .strategy = "pct:3", .stop_on_first_bug = false, .print_report = false,
                    .out = "", .parallel = 2, .record_iterations = true};
  const heddle::result two = heddle::explore(o, sometimes_segfaults, {"runner.segfault_learning", ""});
  o.parallel = 4;
  const heddle::result four = heddle::explore(o, sometimes_segfaults, {"runner.segfault_learning", ""});
  ASSERT_TRUE(two.bug);
  EXPECT_GE(two.stats.workers_replaced, 2u);
  EXPECT_EQ(schedules_of(four), schedules_of(two));
  EXPECT_EQ(four.bugs[0].first_iteration, two.bugs[0].first_iteration);
  EXPECT_EQ(four.bugs[0].count, two.bugs[0].count);
}

TEST(runner_workers, abort_and_stack_overflow_are_bugs_of_their_kind_and_workers_go_on) {
  shared_counter() = 0;
  const heddle::result r = heddle::explore(
      {.iterations = 60, .strategy = "random", .stop_on_first_bug = false, .print_report = false, .out = "",
       .parallel = 2},
      [] {
        const std::uint64_t n = shared_counter().fetch_add(1);
        if (n == 10) std::abort();
        if (n == 20) {
          heddle::thread deep([] {
            struct recurse {
              static int down(int k) {
                if (k == -1) return 0;
                volatile char pad[1024];
                pad[0] = static_cast<char>(k);
                return down(k + 1) + pad[0];
              }
            };
            (void)recurse::down(0);
          });
          deep.join();
        }
      },
      {"runner.abort", ""});
  EXPECT_EQ(r.stats.iterations, 60u);
  ASSERT_EQ(r.bugs.size(), 2u);
  std::set<heddle::bug_kind> kinds;
  for (const heddle::bug_group& g : r.bugs) kinds.insert(g.bug.kind);
  EXPECT_TRUE(kinds.contains(heddle::bug_kind::crash));
  EXPECT_TRUE(kinds.contains(heddle::bug_kind::stack_overflow));
  for (const heddle::bug_group& g : r.bugs)
    if (g.bug.kind == heddle::bug_kind::crash) {
      EXPECT_NE(g.bug.message.find("SIGABRT"), std::string::npos);
    }
}

TEST(runner_workers, hang_past_the_iteration_timeout_is_a_bug_and_the_run_goes_on) {
  shared_counter() = 0;
  const heddle::result r = heddle::explore(
      {.iterations = 40, .strategy = "random", .stop_on_first_bug = false, .print_report = false, .out = "",
       .parallel = 2, .iteration_timeout = std::chrono::milliseconds(1500)},
      [] {
        if (shared_counter().fetch_add(1) == 5)
          for (volatile bool forever = true; forever;) {
          }
      },
      {"runner.hang", ""});
  EXPECT_EQ(r.stats.iterations, 40u);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::livelock);
  EXPECT_NE(r.bug->message.find("--iteration-timeout"), std::string::npos) << r.bug->message;
}

TEST(runner_workers, workers_find_the_same_bugs_and_counts_as_one_process) {
  const auto body = [] {
    const std::uint64_t c = heddle::choose_int(4);
    HEDDLE_ASSERT_MSG(c != 1, "one");
    HEDDLE_ASSERT_MSG(c != 2, "two");
    heddle::state_hash(c);
  };
  heddle::options o{.iterations = 300, .strategy = "random", .stop_on_first_bug = false, .print_report = false,
                    .out = "", .record_iterations = true};
  const heddle::result here = heddle::explore(o, body, {"runner.same", ""});
  o.parallel = 2;
  const heddle::result there = heddle::explore(o, body, {"runner.same", ""});
  ASSERT_EQ(here.bugs.size(), 2u);
  ASSERT_EQ(there.bugs.size(), 2u);
  for (const heddle::bug_group& g : here.bugs) {
    const auto same = std::find_if(there.bugs.begin(), there.bugs.end(),
                                   [&](const heddle::bug_group& h) { return h.signature == g.signature; });
    ASSERT_NE(same, there.bugs.end()) << g.signature;
    EXPECT_EQ(same->count, g.count);
  }
  EXPECT_EQ(here.stats.iterations, there.stats.iterations);
  EXPECT_EQ(here.stats.steps_total, there.stats.steps_total);
  EXPECT_EQ(here.stats.distinct_schedules, there.stats.distinct_schedules);
  EXPECT_EQ(here.stats.schedule_hashes, there.stats.schedule_hashes);
  EXPECT_EQ(here.stats.distinct_end_states, 2u);  // c = 0 or 3: the others end in a bug first
  EXPECT_EQ(there.stats.distinct_end_states, 2u);
}

TEST(runner_workers, systematic_strategy_runs_in_one_worker_and_is_exhausted) {
  const heddle::result r = heddle::explore({.iterations = 1000, .strategy = "dfs", .print_report = false, .out = "",
                                            .parallel = 2},
                                           [] {
                                             int x = 0;
                                             heddle::thread t([&] { x = 1; });
                                             t.join();
                                           },
                                           {"runner.dfs", ""});
  EXPECT_FALSE(r.bug);
  EXPECT_EQ(r.stats.workers, 1u);
  EXPECT_TRUE(r.stats.exhausted);
}

}  // namespace
