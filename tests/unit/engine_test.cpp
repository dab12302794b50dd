// The engine contract (DESIGN.md section 4), checked through the public API:
// bugs and their messages, determinism, replay and divergence, data choices,
// virtual time, unwinding, step bounds, and what survives a crash.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include "heddle/heddle.hpp"

namespace {

heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

void racy_increments() {
  int counter = 0;
  auto increment = [&] {
    const int v = counter;
    heddle::this_thread::yield();
    counter = v + 1;
  };
  heddle::thread a(increment);
  heddle::thread b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2);
}

std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("heddle-engine-test-" + name);
  // A threadsafe death test re-runs the test body in a child process: only the
  // parent may start from an empty directory, or the child would delete what
  // the parent's earlier statements wrote.
  if (GTEST_FLAG_GET(internal_run_death_test).empty()) std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST(engine, lost_update_is_found_and_reported_as_assertion) {
  const auto r = heddle::explore(quiet({.iterations = 1000}), racy_increments);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: counter == 2");
  EXPECT_EQ(r.bug->operation, 1u);
  EXPECT_NE(r.bug->where.file.find("engine_test.cpp"), std::string::npos);
}

TEST(engine, a_check_reports_a_bug_of_its_own_kind) {
  // report_bug is how checks beyond assertions (thread-safety wrappers,
  // monitors, state machines) report: the kind and message are theirs, the
  // operation and position are the caller's, and the operation unwinds.
  bool after = false;
  const auto r = heddle::explore(quiet({.iterations = 10}), [&] {
    heddle::thread t([&] {
      heddle::report_bug(heddle::bug_kind::thread_safety_violation, "two writers overlap");
      after = true;
    });
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::thread_safety_violation);
  EXPECT_EQ(r.bug->message, "two writers overlap");
  EXPECT_EQ(r.bug->operation, 2u);
  EXPECT_NE(r.bug->where.file.find("engine_test.cpp"), std::string::npos);
  EXPECT_FALSE(after);
  EXPECT_EQ(heddle::to_string(heddle::bug_kind::unhandled_event), "unhandled_event");
  EXPECT_EQ(heddle::parse_bug_kind("liveness"), heddle::bug_kind::liveness);
}

TEST(engine, abba_deadlock_message_names_both_waits_and_holders) {
  const auto r = heddle::explore(quiet({.iterations = 1000}), [] {
    heddle::mutex a, b;
    heddle::thread t([&] {
      heddle::this_thread::set_name("worker");
      b.lock();
      a.lock();
      a.unlock();
      b.unlock();
    });
    a.lock();
    b.lock();
    b.unlock();
    a.unlock();
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("operation 1 (main) waits for mutex #"), std::string::npos) << r.bug->message;
  EXPECT_NE(r.bug->message.find("held by operation 2 (worker)"), std::string::npos) << r.bug->message;
  EXPECT_NE(r.bug->message.find("operation 2 (worker) waits for mutex #"), std::string::npos) << r.bug->message;
  EXPECT_NE(r.bug->message.find("held by operation 1 (main)"), std::string::npos) << r.bug->message;
}

TEST(engine, deadlock_through_join_names_the_join) {
  const auto r = heddle::explore(quiet({.iterations = 100}), [] {
    heddle::mutex m;
    m.lock();
    heddle::thread t([&] { m.lock(); m.unlock(); });
    t.join();
    m.unlock();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_NE(r.bug->message.find("operation 1 (main) waits for operation 2 to finish (join)"), std::string::npos)
      << r.bug->message;
}

TEST(engine, same_seed_gives_byte_identical_traces) {
  const auto first = heddle::explore(quiet({.iterations = 1000, .seed = 7}), racy_increments);
  const auto second = heddle::explore(quiet({.iterations = 1000, .seed = 7}), racy_increments);
  ASSERT_TRUE(first.bug && second.bug);
  EXPECT_EQ(heddle::to_json(first.trace), heddle::to_json(second.trace));
  EXPECT_EQ(heddle::to_compact(first.trace), heddle::to_compact(second.trace));
}

TEST(engine, both_trace_encodings_round_trip) {
  const auto r = heddle::explore(quiet({.iterations = 1000, .strategy = "pct:2"}), racy_increments);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(heddle::trace_from_json(heddle::to_json(r.trace)), r.trace);
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(r.trace)), r.trace);
}

// A replay of a hang needs the run's --iteration-timeout: both encodings keep
// it, alone or with the rest of the compact form's tail.
TEST(engine, trace_encodings_keep_the_iteration_timeout) {
  const auto r = heddle::explore(quiet({.iterations = 1000, .iteration_timeout = std::chrono::milliseconds(250)}),
                                 racy_increments);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.trace.header.iteration_timeout_ms, 250u);
  EXPECT_EQ(heddle::trace_from_json(heddle::to_json(r.trace)).header.iteration_timeout_ms, 250u);
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(r.trace)).header.iteration_timeout_ms, 250u);
  heddle::trace with_tail = r.trace;
  with_tail.header.backend = "threads";
  with_tail.header.arguments = {"--port", "80"};
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(with_tail)), with_tail);
  heddle::trace without = r.trace;
  without.header.iteration_timeout_ms = 0;
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(without)).header.iteration_timeout_ms, 0u);
  EXPECT_EQ(heddle::to_json(without).find("iteration_timeout_ms"), std::string::npos);
}

// heddle run's traces record the program's usual exit status and the
// suppressions file: a pasted compact trace must judge its replay as the
// JSON file does. A line without them (written before they were kept) reads
// as neither set.
TEST(engine, compact_traces_keep_the_expected_exit_status_and_suppressions) {
  const auto r = heddle::explore(quiet({.iterations = 1000}), racy_increments);
  ASSERT_TRUE(r.bug);
  heddle::trace run = r.trace;
  run.header.expect_exit = 6;
  run.header.suppressions = "/abs/race.supp";
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(run)), run);
  run.header.expect_exit = 0;
  run.header.suppressions.clear();
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(run)).header.expect_exit, 0);
  heddle::trace old = r.trace;
  old.header.iteration_timeout_ms = 250;
  const heddle::trace read = heddle::trace_from_compact(heddle::to_compact(old));
  EXPECT_EQ(read.header.expect_exit, -1);
  EXPECT_EQ(read.header.suppressions, "");
  EXPECT_EQ(read.header.iteration_timeout_ms, 250u);
}

TEST(engine, corrupted_compact_trace_is_rejected_with_a_message) {
  const auto r = heddle::explore(quiet({.iterations = 1000}), racy_increments);
  ASSERT_TRUE(r.bug);
  std::string compact = heddle::to_compact(r.trace);
  const std::string truncated = compact.substr(0, compact.size() - 5);
  EXPECT_THROW(
      {
        try {
          (void)heddle::trace_from_compact(truncated);
        } catch (const heddle::trace_error& e) {
          EXPECT_NE(std::string(e.what()).find("malformed compact trace"), std::string::npos) << e.what();
          throw;
        }
      },
      heddle::trace_error);
  compact[compact.size() / 2] = compact[compact.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_THROW((void)heddle::trace_from_compact(compact), heddle::trace_error);
  EXPECT_THROW((void)heddle::trace_from_json("{\"format\": \"heddle-trace\"}"), heddle::trace_error);
  EXPECT_THROW((void)heddle::trace_from_json("{not json"), heddle::trace_error);
}

TEST(engine, replay_reproduces_the_bug_at_the_same_step) {
  const auto dir = temp_dir("replay");
  const auto found = heddle::explore({.iterations = 1000, .print_report = false, .out = dir.string()},
                                     racy_increments, {"engine.replay", ""});
  ASSERT_TRUE(found.bug);
  ASSERT_FALSE(found.trace_file.empty());
  for (int i = 0; i < 20; ++i) {
    const auto again = heddle::explore(quiet({.replay = found.trace_file}), racy_increments, {"engine.replay", ""});
    ASSERT_TRUE(again.bug);
    EXPECT_FALSE(again.divergence);
    EXPECT_EQ(again.bug->kind, found.bug->kind);
    EXPECT_EQ(again.bug->step, found.bug->step);
    EXPECT_EQ(again.trace.steps, found.trace.steps);
  }
  std::filesystem::remove_all(dir);
}

TEST(engine, replay_of_another_tests_trace_is_a_usage_error) {
  const auto dir = temp_dir("other");
  const auto found = heddle::explore({.iterations = 1000, .print_report = false, .out = dir.string()},
                                     racy_increments, {"engine.one", ""});
  ASSERT_TRUE(found.bug);
  try {
    (void)heddle::explore(quiet({.replay = found.trace_file}), racy_increments, {"engine.two", ""});
    FAIL() << "expected a usage error";
  } catch (const heddle::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("was recorded for test 'engine.one', not 'engine.two'"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(engine, replay_divergence_names_the_step_and_the_difference) {
  const auto dir = temp_dir("diverge");
  const auto found = heddle::explore({.iterations = 1000, .print_report = false, .out = dir.string()},
                                     racy_increments, {"engine.diverge", ""});
  ASSERT_TRUE(found.bug);
  // The same test, changed so its second thread takes a lock first.
  const auto replayed = heddle::explore(quiet({.replay = found.trace_file}), [] {
    heddle::mutex m;
    heddle::thread a([&] { m.lock(); m.unlock(); });
    heddle::thread b([&] { m.lock(); m.unlock(); });
    a.join();
    b.join();
  }, {"engine.diverge", ""});
  ASSERT_TRUE(replayed.divergence);
  EXPECT_NE(replayed.divergence->find("replay diverged: step "), std::string::npos) << *replayed.divergence;
  EXPECT_NE(replayed.divergence->find("Likely cause"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(engine, data_choices_are_explored_recorded_and_replayed) {
  std::set<std::uint64_t> seen;
  const auto r = heddle::explore(quiet({.iterations = 200}), [&] {
    const bool flag = heddle::choose_bool();
    const auto n = heddle::choose_int(5);
    seen.insert(n * 2 + (flag ? 1 : 0));
    HEDDLE_ASSERT(!(flag && n == 3));
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "assertion failed: !(flag && n == 3)");
  ASSERT_EQ(r.trace.steps.size(), 3u);  // start, the bool, the int
  EXPECT_EQ(r.trace.steps[1].kind, heddle::step_kind::choose_bool);
  EXPECT_EQ(r.trace.steps[1].value, 1u);
  EXPECT_EQ(r.trace.steps[2].kind, heddle::step_kind::choose_int);
  EXPECT_EQ(r.trace.steps[2].value, 3u);
  EXPECT_GE(seen.size(), 5u);
}

TEST(engine, virtual_time_sleeps_cost_no_real_time_and_order_wakeups) {
  const auto started = std::chrono::steady_clock::now();
  std::set<std::string> orders;
  const auto r = heddle::explore(quiet({.iterations = 300}), [&] {
    std::string order;
    heddle::thread slow([&] {
      heddle::this_thread::sleep_for(std::chrono::hours(1));
      order += "s";
    });
    heddle::thread fast([&] {
      heddle::this_thread::sleep_for(std::chrono::seconds(1));
      order += "f";
    });
    slow.join();
    fast.join();
    HEDDLE_ASSERT(heddle::chrono::steady_clock::now().time_since_epoch() >= std::chrono::hours(1));
    orders.insert(order);
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  // Thread speeds are unbounded, so both orders are possible schedules.
  EXPECT_EQ(orders.size(), 2u);
}

TEST(engine, timed_wait_explores_timeout_and_signal) {
  int timeouts = 0, signals = 0;
  const auto r = heddle::explore(quiet({.iterations = 300}), [&] {
    heddle::resource event{heddle::object_kind::user};
    bool fired = false;
    heddle::thread t([&] {
      fired = true;
      heddle::signal(event);
    });
    const auto reason = fired ? heddle::wake_reason::signaled
                              : heddle::wait_until(event, heddle::now() + 1000);
    (reason == heddle::wake_reason::timeout ? timeouts : signals)++;
    t.join();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_GT(timeouts, 0);
  EXPECT_GT(signals, 0);
}

TEST(engine, wait_all_needs_every_signal_and_wait_any_says_which) {
  int all_checked = 0, any_checked = 0;
  const auto r = heddle::explore(quiet({.iterations = 300}), [&] {
    heddle::resource a, b;
    int done = 0;
    heddle::thread t([&] {
      ++done;
      heddle::signal(a);
      heddle::this_thread::yield();
      ++done;
      heddle::signal(b);
    });
    if (done == 0) {  // no scheduling point between this check and the wait
      const heddle::resource* both[] = {&a, &b};
      heddle::wait_all(both);
      HEDDLE_ASSERT(done == 2);
      ++all_checked;
    }
    t.join();

    heddle::resource c, d;
    bool d_fired = false;
    heddle::thread u([&] {
      d_fired = true;
      heddle::signal(d);
    });
    if (!d_fired) {
      const heddle::resource* either[] = {&c, &d};
      HEDDLE_ASSERT(heddle::wait_any(either) == 1);
      ++any_checked;
    }
    u.join();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_GT(all_checked, 0);
  EXPECT_GT(any_checked, 0);
}

TEST(engine, max_steps_ends_quietly_or_reports_livelock) {
  auto spin = [] {
    bool stop = false;
    heddle::thread t([&] {
      while (!stop) heddle::this_thread::yield();
    });
    while (!stop) heddle::this_thread::yield();  // nobody sets it: a livelock
    t.join();
  };
  const auto quietly = heddle::explore(quiet({.iterations = 5, .max_steps = 200}), spin);
  EXPECT_FALSE(quietly.bug);
  EXPECT_EQ(quietly.stats.max_steps_hits, 5u);
  const auto failing = heddle::explore(quiet({.iterations = 5, .max_steps = 200, .fail_on_max_steps = true}), spin);
  ASSERT_TRUE(failing.bug);
  EXPECT_EQ(failing.bug->kind, heddle::bug_kind::livelock);
  EXPECT_NE(failing.bug->message.find("reached 200 steps"), std::string::npos) << failing.bug->message;
}

TEST(engine, uncaught_exception_names_its_type_and_message) {
  const auto r = heddle::explore(quiet({.iterations = 10}), [] {
    heddle::thread t([] { throw std::runtime_error("disk on fire"); });
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::uncaught_exception);
  EXPECT_EQ(r.bug->message, "uncaught exception std::runtime_error: disk on fire");
  EXPECT_EQ(r.bug->operation, 2u);
}

TEST(engine, unwinding_runs_destructors_of_blocked_operations) {
  static int constructed = 0, destroyed = 0;
  struct tracked {
    tracked() { ++constructed; }
    ~tracked() { ++destroyed; }
  };
  constructed = destroyed = 0;
  const auto r = heddle::explore(quiet({.iterations = 50}), [] {
    heddle::mutex a, b;
    heddle::thread t([&] {
      tracked guard;
      b.lock();
      a.lock();
      a.unlock();
      b.unlock();
    });
    tracked guard;
    a.lock();
    b.lock();
    b.unlock();
    a.unlock();
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(constructed, destroyed);
}

TEST(engine, operation_and_object_ids_follow_first_use) {
  const auto r = heddle::explore(quiet({.iterations = 1}), [] {
    heddle::mutex m;
    heddle::thread t([&] { m.lock(); m.unlock(); });
    t.join();
    HEDDLE_ASSERT(false);
  });
  ASSERT_TRUE(r.bug);
  // operation 1's object is #1; thread 2's is #2; the mutex, first used by op 2, is #3.
  bool saw_mutex = false;
  for (const auto& s : r.trace.steps)
    if (s.point == heddle::point_kind::acquire) {
      EXPECT_EQ(s.object, 3u);
      saw_mutex = true;
    }
  EXPECT_TRUE(saw_mutex);
}

TEST(engine, unknown_strategy_spec_is_a_usage_error) {
  try {
    (void)heddle::explore(quiet({.strategy = "nope:1"}), [] {});
    FAIL();
  } catch (const heddle::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown strategy 'nope:1'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)heddle::explore(quiet({.strategy = "pct:x"}), [] {}), heddle::usage_error);
  EXPECT_THROW((void)heddle::explore(quiet({.strategy = "pct:0"}), [] {}), heddle::usage_error);
  EXPECT_THROW((void)heddle::explore(quiet({.strategy = "random:3"}), [] {}), heddle::usage_error);
}

TEST(engine, pct_finds_a_depth_one_ordering_bug_every_time_random_does_not) {
  // Operation 2 must run all its steps before operation 3 starts.
  auto body = [] {
    int progress = 0;
    bool late = false;
    heddle::thread first([&] {
      for (int i = 0; i < 20; ++i) {
        ++progress;
        heddle::this_thread::yield();
      }
    });
    heddle::thread second([&] { late = progress == 20; });
    first.join();
    second.join();
    HEDDLE_ASSERT(!late);
  };
  const auto pct = heddle::explore(quiet({.iterations = 400, .strategy = "pct:1", .stop_on_first_bug = false}), body);
  const auto random = heddle::explore(quiet({.iterations = 400, .strategy = "random", .stop_on_first_bug = false}), body);
  ASSERT_TRUE(pct.bug);
  EXPECT_FALSE(random.bug);
}

TEST(engine_death, stack_overflow_is_reported_with_the_operation_and_saved) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto dir = temp_dir("overflow");
  EXPECT_EXIT(
      {
        struct recurse {
          static int deep(int n) {
            volatile char pad[512];
            pad[0] = static_cast<char>(n);
            return n == 0 ? pad[0] : deep(n - 1) + pad[0];
          }
        };
        (void)heddle::explore({.iterations = 1, .stack_size = 64 * 1024, .print_report = false, .out = dir.string()},
                              [] {
                                heddle::thread t([] { (void)recurse::deep(1 << 20); });
                                t.join();
                              },
                              {"engine.overflow", ""});
      },
      testing::KilledBySignal(SIGSEGV), "stack_overflow: stack overflow in operation 2");
  const auto saved = dir / "engine.overflow" / "bug-1.trace";
  ASSERT_TRUE(std::filesystem::exists(saved));
  const heddle::trace t = heddle::load_trace(saved.string());
  ASSERT_TRUE(t.found);
  EXPECT_EQ(t.found->kind, heddle::bug_kind::stack_overflow);
  EXPECT_EQ(t.header.test, "engine.overflow");
  std::filesystem::remove_all(dir);
}

TEST(engine_death, crash_in_user_code_saves_a_replayable_schedule) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto dir = temp_dir("crash");
  auto body = [] {
    int* volatile p = nullptr;
    bool ready = false;
    heddle::thread t([&] {
      heddle::this_thread::yield();
      ready = true;
    });
    heddle::this_thread::yield();
    if (!ready) *p = 1;  // a crash in one interleaving only
    t.join();
  };
  EXPECT_EXIT((void)heddle::explore({.iterations = 1000, .print_report = false, .out = dir.string()}, body,
                                    {"engine.crash", ""}),
              testing::KilledBySignal(SIGSEGV), "crash: SIGSEGV");
  const auto saved = dir / "engine.crash" / "bug-1.trace";
  ASSERT_TRUE(std::filesystem::exists(saved));
  const heddle::trace t = heddle::load_trace(saved.string());
  ASSERT_TRUE(t.found);
  EXPECT_EQ(t.found->kind, heddle::bug_kind::crash);
  // Replaying the saved schedule crashes the same way.
  EXPECT_EXIT((void)heddle::explore(quiet({.replay = saved.string()}), body, {"engine.crash", ""}),
              testing::KilledBySignal(SIGSEGV), "crash: SIGSEGV");
  std::filesystem::remove_all(dir);
}

TEST(engine, unwinding_an_operation_paused_in_a_lock_guard_destructor_does_not_terminate) {
  const auto r = heddle::explore(quiet({.iterations = 300, .stop_on_first_bug = false}), [] {
    heddle::mutex m;
    heddle::thread t([&] {
      for (int i = 0; i < 3; ++i) {
        std::lock_guard<heddle::mutex> g(m);  // its unlock runs in a noexcept destructor
        heddle::this_thread::yield();
      }
    });
    heddle::this_thread::yield();
    HEDDLE_ASSERT(false);  // ends each iteration wherever t is, sometimes inside ~lock_guard
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.stats.iterations, 300u);
}

TEST(engine, an_operation_whose_unwinding_meets_a_noexcept_frame_is_abandoned_not_fatal) {
  struct yields_in_destructor {
    ~yields_in_destructor() { heddle::this_thread::yield(); }  // implicitly noexcept
  };
  const auto r = heddle::explore(quiet({.iterations = 300, .stop_on_first_bug = false}), [] {
    heddle::thread t([] {
      yields_in_destructor y;
      heddle::this_thread::yield();
    });
    heddle::this_thread::yield();
    heddle::this_thread::yield();
    HEDDLE_ASSERT(false);
    t.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.stats.iterations, 300u);
}

TEST(engine, statistics_count_buggy_iterations_when_exploring_past_the_first_bug) {
  const auto r = heddle::explore(quiet({.iterations = 400, .stop_on_first_bug = false}), racy_increments);
  EXPECT_EQ(r.stats.iterations, 400u);
  EXPECT_GT(r.stats.buggy_iterations, 0u);
  EXPECT_LT(r.stats.buggy_iterations, 400u);
}

TEST(engine, an_assertion_inside_an_async_task_is_the_bug_not_the_futures_exception) {
  const auto r = heddle::explore(quiet({.iterations = 20}), [] {
    auto f = heddle::async(heddle::launch::async, [] { HEDDLE_ASSERT(1 + 1 == 3); });
    f.get();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: 1 + 1 == 3");
  EXPECT_EQ(r.bug->operation, 2u);
}
