// libheddle-rt's ThreadSanitizer ABI, in process: this file and programs.c
// are compiled with -fsanitize=thread and linked to libheddle-rt instead of
// libtsan, as heddle-cc would, and their bodies run under heddle::explore.
// Checks: memory accesses as scheduling points under each --memory policy,
// atomics as modeled operations (exact, with points and spurious weak-CAS
// failures), the race detector (reports with both accesses and source lines;
// no report where models order the accesses), replay of a race, and that
// hooks outside control do the plain operation.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "heddle/async.hpp"
#include "heddle/atomic.hpp"
#include "heddle/barrier.hpp"
#include "heddle/explore.hpp"
#include "heddle/future.hpp"
#include "heddle/latch.hpp"
#include "heddle/mutex.hpp"
#include "heddle/once.hpp"
#include "heddle/semaphore.hpp"
#include "heddle/shared_mutex.hpp"
#include "heddle/task.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "programs.h"
#include "shared_counter.h"

namespace {

heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

// "programs.c:13": the line of programs.c marked "// line: <marker>".
std::string where(const std::string& marker, const std::string& path = TSAN_PROGRAMS_SOURCE) {
  std::ifstream in(path);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n)
    if (text.ends_with("// line: " + marker))
      return std::filesystem::path(path).filename().string() + ":" + std::to_string(n);
  ADD_FAILURE() << "no line marked " << marker;
  return "?";
}

// Two threads each running `body`, joined.
template <class F>
void two_threads(F body) {
  heddle::thread a(body);
  heddle::thread b(body);
  a.join();
  b.join();
}

}  // namespace

// --- memory accesses as scheduling points ----------------------------------

TEST(tsan_memory, lost_update_on_a_plain_int_needs_memory_points) {
  const auto lost_update = [] {
    plain_counter = 0;
    two_threads(bump);
    HEDDLE_ASSERT(plain_counter == 2);
  };
  for (auto policy : {heddle::memory_policy::all, heddle::memory_policy::shared}) {
    const auto r = heddle::explore(
        quiet({.iterations = 2000, .strategy = "random", .memory = policy, .detect_races = false}), lost_update);
    ASSERT_TRUE(r.bug) << to_string(policy);
    EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
    EXPECT_EQ(r.bug->message, "assertion failed: plain_counter == 2");
  }
  // Without memory points each bump runs whole: the update is never lost.
  const auto none = heddle::explore(
      quiet({.iterations = 500, .strategy = "random", .memory = heddle::memory_policy::none, .detect_races = false}),
      lost_update);
  EXPECT_FALSE(none.bug) << none.report;
}

TEST(tsan_memory, shared_policy_makes_points_of_heap_addresses_two_operations_touched_and_of_globals) {
  // One iteration under dfs takes the same first schedule whatever the policy.
  // The baseline is the same program without the byte accesses. (Each thread
  // reads its closure from its own stack: private, no point; before stacks were
  // kept per operation while a detector listens, the second thread's closure
  // sat where the first one's had been and counted as shared.)
  static unsigned char* const block = new unsigned char[16]();  // written by no instrumented code yet
  const auto steps = [](heddle::memory_policy policy, int first, int second, bool global) {
    const auto r = heddle::explore(
        quiet({.iterations = 1, .strategy = "dfs", .memory = policy, .detect_races = false}), [=] {
          const auto write = [global](int index) { global ? write_byte(index) : write_block_byte(block, index); };
          heddle::thread a([=] { if (first >= 0) write(first); });
          heddle::thread b([=] { if (second >= 0) write(second); });
          a.join();
          b.join();
        });
    EXPECT_FALSE(r.bug) << r.report;
    return r.stats.steps_total;
  };
  const auto baseline = steps(heddle::memory_policy::shared, -1, -1, false);
  // block[0] and block[8] lie in different 8-byte granules: nothing shared
  // (each thread's read of the pointer `block`, a global, is a point).
  const auto apart = steps(heddle::memory_policy::shared, 0, 8, false);
  EXPECT_EQ(apart, baseline + 2);
  // The same byte: the second thread's read and write become points.
  EXPECT_EQ(steps(heddle::memory_policy::shared, 0, 0, false), apart + 2);
  // A global is a point from its first touch while another operation is
  // alive: each thread's read and write of its byte (the other thread exists
  // by then), though no byte is touched by two.
  EXPECT_EQ(steps(heddle::memory_policy::shared, 0, 8, true), baseline + 4);
  // Under "all", every read and write of the two bytes is a point too.
  EXPECT_GE(steps(heddle::memory_policy::all, 0, 8, false), baseline + 4);
  // Under "none", not even the shared byte is.
  EXPECT_EQ(steps(heddle::memory_policy::none, 0, 0, false), baseline);
  EXPECT_EQ(steps(heddle::memory_policy::none, 0, 0, true), baseline);
  EXPECT_EQ(steps(heddle::memory_policy::none, -1, -1, false), baseline);
}

TEST(tsan_memory, atomicity_violation_on_a_shared_struct_is_found) {
  const auto r = heddle::explore(quiet({.iterations = 2000, .strategy = "random", .detect_races = false}), [] {
    checking = {100, 0};
    heddle::thread a([] { deposit(10); });
    heddle::thread b([] { deposit(20); });
    a.join();
    b.join();
    HEDDLE_ASSERT(checking.balance == 130 && checking.deposits == 2);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
}

// --- atomics -----------------------------------------------------------------

TEST(tsan_atomics, fetch_add_is_exact_and_each_operation_is_a_point) {
  const auto r = heddle::explore(quiet({.iterations = 300, .strategy = "random"}), [] {
    atomic_counter = 0;
    two_threads([] { atomic_bump(5); });
    HEDDLE_ASSERT(atomic_counter == 10);
  });
  ASSERT_FALSE(r.bug) << r.report;
  // 10 rmw points, plus starts, finishes and joins.
  EXPECT_GE(r.stats.steps_min, 10u);
}

TEST(tsan_atomics, compare_exchange_weak_fails_spuriously_only_when_enabled) {
  int failures_on = 0;
  int failures_off = 0;
  for (auto [enabled, failures] : {std::pair{true, &failures_on}, std::pair{false, &failures_off}}) {
    const auto r = heddle::explore(quiet({.iterations = 400, .strategy = "random", .spurious_cas_failures = enabled}),
                                   [failures] {
                                     int word = 0;
                                     *failures += weak_cas_fails(&word);
                                   });
    ASSERT_FALSE(r.bug) << r.report;
  }
  EXPECT_GT(failures_on, 0);
  EXPECT_EQ(failures_off, 0);
}

TEST(tsan_atomics, sixteen_byte_exchange_is_real) {
  const auto r = heddle::explore(quiet({.iterations = 10}), [] {
    alignas(16) tsan_u128 word = 5;
    const tsan_u128 big = static_cast<tsan_u128>(1) << 100;
    HEDDLE_ASSERT(wide_exchange(&word, big) == 5);
    HEDDLE_ASSERT(word == big);
  });
  EXPECT_FALSE(r.bug) << r.report;
}

TEST(tsan_atomics, hooks_outside_control_do_the_plain_operation) {
  atomic_counter = 0;
  atomic_bump(3);
  EXPECT_EQ(atomic_counter, 3);
  plain_counter = 41;
  bump();
  EXPECT_EQ(read_counter(), 42);
  alignas(16) tsan_u128 word = 7;
  EXPECT_TRUE(wide_exchange(&word, 9) == 7);
}

// Under rc11 a read-modify-write may read an older store than memory holds,
// as heddle::atomic's does (tests/memory_model/litmus_test.cpp,
// an_rmw_may_read_a_store_older_than_one_that_ran_before_it, derives the
// outcomes): x=1; y=1 || a=y; b=x.fetch_add(10) (or a compare-exchange
// 0 -> 10), all relaxed, reaches a=1 with the RMW reading 0 and x=1 after it
// in mo (final x=1), under dfs and under dpor, which explores each of the
// four executions once. Memory keeps the newest store: the final load reads 1.
TEST(tsan_atomics, rc11_a_read_modify_write_may_read_a_store_older_than_memory_holds) {
  for (const bool cas : {false, true})
    for (const char* strategy : {"dfs", "dpor"}) {
      SCOPED_TRACE(std::string(strategy) + (cas ? ", compare_exchange" : ", fetch_add"));
      std::set<std::vector<int>> seen;
      const auto r = heddle::explore(
          quiet({.iterations = 10'000, .strategy = strategy, .memory_model = heddle::memory_model::rc11}), [&seen, cas] {
            std::atomic<int> x{0}, y{0};
            int a = -1, b = -1;
            heddle::thread t([&x, &y] {
              x.store(1, std::memory_order_relaxed);
              y.store(1, std::memory_order_relaxed);
            });
            a = y.load(std::memory_order_relaxed);
            if (cas) {
              int expected = 0;
              b = x.compare_exchange_strong(expected, 10, std::memory_order_relaxed) ? 1 : 0;
            } else {
              b = x.fetch_add(10, std::memory_order_relaxed);
            }
            t.join();
            seen.insert({a, b, x.load(std::memory_order_relaxed)});
          });
      ASSERT_FALSE(r.bug) << r.report;
      EXPECT_TRUE(r.stats.exhausted);
      // fetch_add: (a, value read, final x); compare_exchange: (a, succeeded, final x).
      const std::set<std::vector<int>> expected =
          cas ? std::set<std::vector<int>>{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}}
              : std::set<std::vector<int>>{{0, 0, 1}, {0, 1, 11}, {1, 0, 1}, {1, 1, 11}};
      EXPECT_EQ(seen, expected);
      if (std::string(strategy) == "dpor") {
        EXPECT_EQ(r.stats.schedules, 4u);
        EXPECT_EQ(r.stats.iterations, 4u);
      }
    }
}

// --- the race detector -------------------------------------------------------

TEST(tsan_races, unordered_write_and_read_are_reported_with_both_source_lines) {
  const auto r = heddle::explore(quiet({.iterations = 200, .strategy = "random"}), [] {
    heddle::thread writer(bump);
    heddle::thread reader([] { (void)read_counter(); });
    writer.join();
    reader.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::data_race);
  const std::string& m = r.bug->message;
  EXPECT_NE(m.find("data race on 4 bytes at 0x"), std::string::npos) << m;
  EXPECT_NE(m.find(" (plain_counter): "), std::string::npos) << m;
  EXPECT_NE(m.find("write by operation"), std::string::npos) << m;
  EXPECT_NE(m.find("read by operation"), std::string::npos) << m;
  EXPECT_NE(m.find(where("bump") + " in bump"), std::string::npos) << m;
  EXPECT_NE(m.find(where("read_counter") + " in read_counter"), std::string::npos) << m;
  EXPECT_NE(m.find("not ordered by happens-before"), std::string::npos) << m;
  EXPECT_EQ(r.bug->where.line, std::stoul(where(r.bug->where.function).substr(11))) << m;
  // The report's interleaving shows where memory steps happened.
  EXPECT_NE(r.report.find("(programs.c:"), std::string::npos) << r.report;
}

TEST(tsan_races, race_in_an_instrumented_shared_library_is_found_with_its_source_line) {
  const auto r = heddle::explore(quiet({.iterations = 100, .strategy = "random"}), [] {
    heddle::thread a([] { add_to_total(1); });
    heddle::thread b([] { add_to_total(2); });
    a.join();
    b.join();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::data_race);
  EXPECT_NE(r.bug->message.find("(shared_total)"), std::string::npos) << r.bug->message;
  EXPECT_NE(r.bug->message.find(where("add_to_total", TSAN_SHARED_SOURCE) + " in add_to_total"), std::string::npos)
      << r.bug->message;
}

TEST(tsan_races, race_found_in_the_first_iteration_even_when_no_assertion_fails) {
  // The threads' bumps are unordered; the detector needs no bad interleaving.
  const auto r = heddle::explore(quiet({.iterations = 1, .memory = heddle::memory_policy::none}), [] {
    plain_counter = 0;
    two_threads(bump);
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::data_race);
}

TEST(tsan_races, each_iteration_starts_with_an_empty_shadow) {
  // Operation 1 reads the counter before it creates operation 2, which
  // writes it last. If the next iteration still saw that write (operation 2,
  // its first epoch), operation 1's first read, made before any operation 2
  // exists, would race with it.
  for (const auto policy : {heddle::memory_policy::none, heddle::memory_policy::shared}) {
    const auto r = heddle::explore(quiet({.iterations = 20, .strategy = "random", .memory = policy}), [] {
      HEDDLE_ASSERT(read_counter() >= 0);
      heddle::thread t(bump);
      t.join();
    });
    EXPECT_FALSE(r.bug) << (r.bug ? r.bug->message : std::string());
    EXPECT_EQ(r.stats.iterations, 20U);
  }
}

namespace {

// 300 random iterations of a producer publishing 42 through a flag and a
// consumer that waits for the flag and must read 42, in `mode` (the
// program's own: relaxed, release/acquire, fences...).
heddle::result publication(void (*publish_in)(int value, int mode), int (*consume_in)(int mode), int mode,
                           heddle::memory_model model = heddle::memory_model::sc) {
  return heddle::explore(quiet({.iterations = 300, .strategy = "random", .memory_model = model}), [=] {
    payload = fenced_payload = 0;
    ready = fenced_ready = 0;
    heddle::thread producer([=] { publish_in(42, mode); });
    heddle::thread consumer([=] { HEDDLE_ASSERT(consume_in(mode) == 42); });
    producer.join();
    consumer.join();
  });
}

}  // namespace

TEST(tsan_races, relaxed_publication_races_and_release_acquire_does_not) {
  const auto run = [](int ordered) { return publication(publish, consume, ordered); };
  const auto relaxed = run(0);
  ASSERT_TRUE(relaxed.bug);
  EXPECT_EQ(relaxed.bug->kind, heddle::bug_kind::data_race);
  EXPECT_NE(relaxed.bug->message.find(where("consume")), std::string::npos) << relaxed.bug->message;
  const auto ordered = run(1);
  EXPECT_FALSE(ordered.bug) << ordered.report;
}

// Fences order like C++ says: a release fence before a relaxed store and an
// acquire fence after the relaxed load that reads it (or seq_cst fences on
// both sides) publish the payload; the same relaxed flag without fences races.
TEST(tsan_races, fences_order_relaxed_publication_and_no_fences_race) {
  const auto run = [](int fenced) { return publication(publish_fenced, consume_fenced, fenced); };
  const auto unfenced = run(0);
  ASSERT_TRUE(unfenced.bug);
  EXPECT_EQ(unfenced.bug->kind, heddle::bug_kind::data_race);
  EXPECT_NE(unfenced.bug->message.find(where("consume_fenced")), std::string::npos) << unfenced.bug->message;
  const auto acquire_release = run(1);
  EXPECT_FALSE(acquire_release.bug) << acquire_release.report;
  EXPECT_EQ(acquire_release.stats.iterations, 300u);
  const auto seq_cst = run(2);
  EXPECT_FALSE(seq_cst.bug) << seq_cst.report;
}

// Under rc11 the detector's happens-before is the memory model's: an acquire
// load synchronizes with the store it read (tests/pushbutton/wm_* check the
// rest). The same publications as above: relaxed races, release/acquire and
// fences order.
TEST(tsan_races, rc11_publication_orders_through_the_store_read) {
  constexpr auto rc11 = heddle::memory_model::rc11;
  const auto relaxed = publication(publish, consume, 0, rc11);
  ASSERT_TRUE(relaxed.bug);
  EXPECT_EQ(relaxed.bug->kind, heddle::bug_kind::data_race);
  EXPECT_NE(relaxed.bug->message.find(where("consume")), std::string::npos) << relaxed.bug->message;
  const auto ordered = publication(publish, consume, 1, rc11);
  EXPECT_FALSE(ordered.bug) << ordered.report;
  EXPECT_EQ(ordered.stats.weak_order_iterations, 0u);  // explored as weak, not run as seq_cst
  EXPECT_EQ(ordered.stats.plain_unseen_iterations, 0u);  // instrumented: plain memory is seen
  EXPECT_TRUE(ordered.stats.caveats().empty()) << testing::PrintToString(ordered.stats.caveats());
  const auto unfenced = publication(publish_fenced, consume_fenced, 0, rc11);
  ASSERT_TRUE(unfenced.bug);
  EXPECT_EQ(unfenced.bug->kind, heddle::bug_kind::data_race);
  for (int fenced : {1, 2}) {
    const auto r = publication(publish_fenced, consume_fenced, fenced, rc11);
    EXPECT_FALSE(r.bug) << "fences " << fenced << ": " << r.report;
    EXPECT_EQ(r.stats.iterations, 300u);
  }
}

// Mixed-size atomics are not modelled under rc11: an 8-byte release store read
// as its 4-byte half with acquire stays sequentially consistent and still
// publishes the payload (no stale read, no race), and the verdict says weak
// orders ran as seq_cst.
TEST(tsan_races, rc11_mixed_size_atomics_fall_back_to_sequential_consistency) {
  const auto r = heddle::explore(
      quiet({.iterations = 300, .strategy = "random", .memory_model = heddle::memory_model::rc11}), [] {
        wide_flag = 0;
        wide_payload = 0;
        heddle::thread producer([] { publish_wide(42); });
        heddle::thread consumer([] { HEDDLE_ASSERT(consume_narrow() == 42); });
        producer.join();
        consumer.join();
      });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(r.stats.iterations, 300u);
  EXPECT_GT(r.stats.weak_order_iterations, 0u);
}

// A plain write to an atomic that another operation accesses atomically is a
// data race (undefined behaviour), reported with the atomic side named;
// atomic accesses alone never race; a plain write ordered before (by the
// threads' creation) does not race.
TEST(tsan_races, plain_access_racing_with_an_atomic_one_is_a_race_atomics_alone_are_not) {
  const auto mixed_run = heddle::explore(quiet({.iterations = 300, .strategy = "random"}), [] {
    heddle::thread atomic_writer([] { mixed_atomic_store(1); });
    heddle::thread plain_writer([] { mixed_plain_write(2); });
    atomic_writer.join();
    plain_writer.join();
  });
  ASSERT_TRUE(mixed_run.bug);
  EXPECT_EQ(mixed_run.bug->kind, heddle::bug_kind::data_race);
  EXPECT_NE(mixed_run.bug->message.find("atomic write by operation"), std::string::npos) << mixed_run.bug->message;
  EXPECT_NE(mixed_run.bug->message.find(where("mixed_plain_write")), std::string::npos) << mixed_run.bug->message;

  const auto atomics_only = heddle::explore(quiet({.iterations = 300, .strategy = "random"}), [] {
    heddle::thread writer([] { mixed_atomic_store(1); });
    heddle::thread reader([] { (void)mixed_atomic_load(); });
    heddle::thread other_writer([] { mixed_atomic_store(2); });
    writer.join();
    reader.join();
    other_writer.join();
  });
  EXPECT_FALSE(atomics_only.bug) << atomics_only.report;

  const auto ordered = heddle::explore(quiet({.iterations = 300, .strategy = "random"}), [] {
    mixed_plain_write(0);  // before the threads exist
    heddle::thread writer([] { mixed_atomic_store(1); });
    heddle::thread reader([] { (void)mixed_atomic_load(); });
    writer.join();
    reader.join();
    mixed_plain_write(3);  // after both are joined
  });
  EXPECT_FALSE(ordered.bug) << ordered.report;
}

TEST(tsan_races, adjacent_bytes_do_not_race) {
  const auto r = heddle::explore(quiet({.iterations = 200, .strategy = "random"}), [] {
    heddle::thread a([] { write_byte(2); });
    heddle::thread b([] { write_byte(3); });  // same granule, other byte
    a.join();
    b.join();
  });
  EXPECT_FALSE(r.bug) << r.report;
}

// Every model's edges order the two bumps: no race under any schedule.
TEST(tsan_races, models_order_accesses_no_false_reports) {
  const heddle::options o = quiet({.iterations = 200, .strategy = "random"});
  const auto check = [&](const char* what, std::function<void()> body) {
    const auto r = heddle::explore(o, body);
    EXPECT_FALSE(r.bug) << what << ": " << r.report;
  };
  check("create and join", [] {
    plain_counter = 0;
    heddle::thread t(bump);
    t.join();
    bump();
  });
  check("mutex", [] {
    heddle::mutex m;
    two_threads([&] {
      std::lock_guard g(m);
      bump();
    });
  });
  check("shared_mutex", [] {
    heddle::shared_mutex m;
    heddle::thread w([&] {
      std::lock_guard g(m);
      bump();
    });
    heddle::thread r([&] {
      std::shared_lock g(m);
      (void)read_counter();
    });
    w.join();
    r.join();
  });
  check("semaphore", [] {
    heddle::binary_semaphore done(0);
    heddle::thread t([&] {
      bump();
      done.release();
    });
    done.acquire();
    bump();
    t.join();
  });
  check("latch", [] {
    heddle::latch l(1);
    heddle::thread t([&] {
      bump();
      l.count_down();
    });
    l.wait();
    bump();
    t.join();
  });
  check("barrier", [] {
    heddle::barrier b(2);
    heddle::thread t([&] {
      bump();
      b.arrive_and_wait();
    });
    b.arrive_and_wait();
    bump();
    t.join();
  });
  check("future", [] {
    heddle::promise<int> p;
    heddle::future<int> f = p.get_future();
    heddle::thread t([&] {
      bump();
      p.set_value(1);
    });
    (void)f.get();
    bump();
    t.join();
  });
  check("call_once", [] {
    static heddle::once_flag* flag = nullptr;
    heddle::once_flag local;
    flag = &local;
    two_threads([] { heddle::call_once(*flag, bump); });
  });
}

// Coroutine tasks in instrumented code: the task runtime's own bookkeeping,
// inline in heddle/task.hpp and heddle/async.hpp, is no data of the program's,
// and a task's resumptions, a child's completion and an async_mutex order the
// program's accesses; an unprotected read-await-write is still a race.
heddle::task<int> instrumented_child(int x) {
  co_await heddle::yield();
  co_return x + 1;
}
heddle::task<void> instrumented_worker(heddle::async_mutex* m, int* total) {
  const int v = co_await instrumented_child(1);
  if (m == nullptr) {
    const int seen = *total;
    co_await heddle::yield();
    *total = seen + v;
    co_return;
  }
  auto guard = co_await m->scoped_lock();
  *total += v;
}

TEST(tsan_races, tasks_are_ordered_by_their_runtime_and_an_unprotected_update_races) {
  const heddle::options o = quiet({.iterations = 300, .strategy = "random"});
  const auto fixed = heddle::explore(o, [] {
    heddle::async_mutex m;
    int total = 0;
    auto a = heddle::run(instrumented_worker(&m, &total), "a");
    auto b = heddle::run(instrumented_worker(&m, &total), "b");
    heddle::wait_all(a, b);
    HEDDLE_ASSERT(total == 4);
  });
  EXPECT_FALSE(fixed.bug) << fixed.report;
  const auto buggy = heddle::explore(o, [] {
    int total = 0;
    auto a = heddle::run(instrumented_worker(nullptr, &total), "a");
    auto b = heddle::run(instrumented_worker(nullptr, &total), "b");
    heddle::wait_all(a, b);
  });
  ASSERT_TRUE(buggy.bug);
  EXPECT_EQ(buggy.bug->kind, heddle::bug_kind::data_race) << buggy.report;
  // Both accesses are the worker's own, on `total`: none is the runtime's.
  EXPECT_NE(buggy.bug->message.find("tsan_test.cpp"), std::string::npos) << buggy.bug->message;
  EXPECT_EQ(buggy.bug->message.find(".hpp"), std::string::npos) << buggy.bug->message;
}

TEST(tsan_races, pthread_programs_get_edges_from_create_join_once_and_mutexes) {
  const auto racy = heddle::explore(quiet({.iterations = 100, .strategy = "random"}), [] { (void)pthread_finishers(0); });
  ASSERT_TRUE(racy.bug);
  EXPECT_EQ(racy.bug->kind, heddle::bug_kind::data_race);
  EXPECT_NE(racy.bug->message.find("(last_finisher)"), std::string::npos) << racy.bug->message;
  EXPECT_NE(racy.bug->message.find(where("finish") + " in finish"), std::string::npos) << racy.bug->message;
  const auto locked = heddle::explore(quiet({.iterations = 300, .strategy = "random"}), [] {
    HEDDLE_ASSERT(pthread_finishers(1) == 2);
  });
  EXPECT_FALSE(locked.bug) << locked.report;
}

TEST(tsan_races, shared_lock_readers_are_not_ordered_with_each_other) {
  const auto r = heddle::explore(quiet({.iterations = 200, .strategy = "random"}), [] {
    heddle::shared_mutex m;
    two_threads([&] {
      std::shared_lock g(m);
      bump();  // a write under a read lock: a race between the readers
    });
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::data_race);
}

TEST(tsan_races, a_race_replays_from_its_trace) {
  const std::string out = ::testing::TempDir() + "tsan_replay";
  std::filesystem::remove_all(out);
  heddle::options o = quiet({.iterations = 500, .strategy = "random"});
  o.out = out;
  const auto body = [] {
    plain_counter = 0;
    two_threads(bump_twice);
  };
  const auto found = heddle::explore(o, body);
  ASSERT_TRUE(found.bug);
  ASSERT_FALSE(found.trace_file.empty());
  for (int i = 0; i < 5; ++i) {
    heddle::options again = quiet();
    again.replay = found.trace_file;
    const auto replayed = heddle::explore(again, body);
    ASSERT_FALSE(replayed.divergence) << *replayed.divergence;
    ASSERT_TRUE(replayed.bug);
    EXPECT_EQ(replayed.bug->kind, heddle::bug_kind::data_race);
    EXPECT_EQ(replayed.bug->message, found.bug->message);
  }
  std::filesystem::remove_all(out);
}

// Sibling threads that never share data: each fills an array on its own stack
// (its address escapes, so the compiler instruments the accesses). Without a
// race detector, a fiber's stack goes back to the pool when its operation ends
// and the next operation to start gets it; the second thread then writes the
// very addresses the first one wrote, with nothing ordering the two. That is
// fresh memory, not a race, and it must not be reported as one.
TEST(tsan_races, a_stack_reused_by_a_later_operation_is_not_a_race) {
  for (const auto memory : {heddle::memory_policy::shared, heddle::memory_policy::all}) {
    heddle::options o = quiet({.iterations = 300, .strategy = "random"});
    o.memory = memory;
    const auto r = heddle::explore(o, [] {
      const volatile int* first = nullptr;
      const volatile int* second = nullptr;
      const auto fill = [](const volatile int*& where) {
        volatile int scratch[64];
        where = scratch;
        for (int i = 0; i < 64; ++i) scratch[i] = i;
        heddle::this_thread::yield();
        for (int i = 0; i < 64; ++i) scratch[i] = scratch[i] + 1;
      };
      heddle::thread a([&] { fill(first); });
      heddle::thread b([&] { fill(second); });
      a.join();
      b.join();
    });
    EXPECT_FALSE(r.bug) << r.report;
  }
}

// heddle::atomic's own bookkeeping, inlined into this instrumented file, is not
// the program's memory: relaxed increments from two threads race with nothing.
TEST(tsan_races, relaxed_heddle_atomics_are_not_plain_races) {
  const auto r = heddle::explore(quiet({.iterations = 300, .strategy = "random"}), [] {
    heddle::atomic<int> counter{0};
    two_threads([&] {
      counter.fetch_add(1, std::memory_order_relaxed);
      counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    });
    (void)counter.load(std::memory_order_relaxed);
  });
  EXPECT_FALSE(r.bug) << r.report;
}
