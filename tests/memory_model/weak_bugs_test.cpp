// Weak-memory bugs that only memory_model::rc11 finds, each with a fixed twin:
// the default strategy finds the bug within 10,000 iterations, dfs verifies the
// twin, and under memory_model::sc dfs misses the bug (interleavings alone
// cannot show it). Payloads are relaxed atomics: native heddle models atomics,
// not plain memory (push-button builds model neither yet).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/thread.hpp"

namespace {

heddle::options quiet(heddle::options o, heddle::memory_model model) {
  o.print_report = false;
  o.out.clear();
  o.memory_model = model;
  return o;
}
constexpr auto rc11 = heddle::memory_model::rc11;
constexpr auto sc = heddle::memory_model::sc;

// Double-checked locking: the first check reads the pointer without
// synchronizing with the initializing thread when `publish`/`check` are relaxed.
struct widget {
  heddle::atomic<int> value{0};
};
void double_checked_locking(std::memory_order publish, std::memory_order check) {
  heddle::atomic<widget*> instance{nullptr};
  heddle::mutex m;
  auto get = [&]() -> widget* {
    widget* w = instance.load(check);
    if (w == nullptr) {
      std::lock_guard lock(m);
      w = instance.load(std::memory_order_relaxed);
      if (w == nullptr) {
        w = new widget;
        w->value.store(42, std::memory_order_relaxed);
        instance.store(w, publish);
      }
    }
    return w;
  };
  int a_saw = -1, b_saw = -1;
  heddle::thread a([&] { a_saw = get()->value.load(std::memory_order_relaxed); });
  heddle::thread b([&] { b_saw = get()->value.load(std::memory_order_relaxed); });
  a.join();
  b.join();
  delete instance.load();
  HEDDLE_ASSERT(a_saw == 42 && b_saw == 42);
}

TEST(weak_bugs, double_checked_locking_with_a_relaxed_flag) {
  auto r = heddle::explore(quiet({.iterations = 10'000}, rc11), [] {
    double_checked_locking(std::memory_order_relaxed, std::memory_order_relaxed);
  });
  ASSERT_TRUE(r.bug) << r.report;
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: a_saw == 42 && b_saw == 42");

  auto fixed = heddle::explore(quiet({.iterations = 1'000'000, .strategy = "dfs"}, rc11), [] {
    double_checked_locking(std::memory_order_release, std::memory_order_acquire);
  });
  EXPECT_TRUE(fixed) << fixed.report;
  EXPECT_TRUE(fixed.stats.exhausted);

  // Interleavings alone never show it: under sc, dfs explores them all.
  auto interleavings = heddle::explore(quiet({.iterations = 1'000'000, .strategy = "dfs"}, sc), [] {
    double_checked_locking(std::memory_order_relaxed, std::memory_order_relaxed);
  });
  EXPECT_TRUE(interleavings) << interleavings.report;
  EXPECT_TRUE(interleavings.stats.exhausted);
}

// Message passing: a consumer that sees the flag must see the data.
unsigned data_store_line = 0;  // where message_passing stores the data, for the report test
void message_passing(std::memory_order publish, std::memory_order check) {
  heddle::atomic<int> data{0};
  heddle::atomic<bool> ready{false};
  heddle::thread producer([&] {
    data.store(7, std::memory_order_relaxed), data_store_line = __LINE__;
    ready.store(true, publish);
  });
  heddle::thread consumer([&] {
    if (ready.load(check)) HEDDLE_ASSERT(data.load(std::memory_order_relaxed) == 7);
  });
  producer.join();
  consumer.join();
}

TEST(weak_bugs, message_passing_with_a_relaxed_flag) {
  auto r = heddle::explore(quiet({.iterations = 10'000}, rc11), [] {
    message_passing(std::memory_order_relaxed, std::memory_order_relaxed);
  });
  ASSERT_TRUE(r.bug) << r.report;
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bug->message, "assertion failed: data.load(std::memory_order_relaxed) == 7");

  auto fixed = heddle::explore(quiet({.iterations = 1'000'000, .strategy = "dfs"}, rc11), [] {
    message_passing(std::memory_order_release, std::memory_order_acquire);
  });
  EXPECT_TRUE(fixed) << fixed.report;
  EXPECT_TRUE(fixed.stats.exhausted);
}

// The report's row of a stale read says what it saw, which store it read and
// which newer store it missed (docs/memory-model.md, "Reading a weak-memory
// report"), and a trace file carries the words for a later report.
TEST(weak_bugs, a_stale_read_says_which_store_it_read_and_which_it_missed) {
  heddle::options o = quiet({.iterations = 10'000}, rc11);
  o.out = ::testing::TempDir() + "heddle-weak-memory-report";
  auto r = heddle::explore(o, [] { message_passing(std::memory_order_relaxed, std::memory_order_relaxed); });
  ASSERT_TRUE(r.bug);
  const std::string note = "saw 0 (relaxed) from the initial value; the store of 7 by op 2 at weak_bugs_test.cpp:" +
                           std::to_string(data_store_line) + " was not yet visible";
  EXPECT_NE(r.report.find(note), std::string::npos) << r.report;
  EXPECT_EQ(r.report.find("read choice"), std::string::npos) << r.report;
  ASSERT_FALSE(r.trace_file.empty());
  std::ifstream file(r.trace_file);
  const std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"weak_memory\""), std::string::npos);
  EXPECT_NE(json.find("(relaxed) from the initial value; the store of 7 by op 2"), std::string::npos) << json;
}

// The default model is sc: a pass of a test that uses weaker orders says that
// their reorderings were not explored, and how to explore them. Under rc11 the
// same test is verified without that caveat, and the verdict names the model.
TEST(weak_bugs, a_pass_under_sc_says_weak_behaviours_were_not_explored) {
  auto body = [] { message_passing(std::memory_order_release, std::memory_order_acquire); };
  auto under_sc = heddle::explore(quiet({.iterations = 100}, heddle::options{}.memory_model), body);
  ASSERT_TRUE(under_sc) << under_sc.report;
  EXPECT_EQ(under_sc.stats.weak_order_iterations, under_sc.stats.iterations);
  const auto caveats = under_sc.stats.caveats();
  ASSERT_EQ(caveats.size(), 1u);
  EXPECT_NE(caveats[0].find("weaker than seq_cst"), std::string::npos) << caveats[0];
  EXPECT_NE(caveats[0].find("--memory-model rc11"), std::string::npos) << caveats[0];

  auto exhaustive = heddle::explore(quiet({.iterations = 1'000'000, .strategy = "dfs"}, sc), body);
  EXPECT_NE(exhaustive.verdict().find("verified for sequentially consistent interleavings only"), std::string::npos)
      << exhaustive.verdict();

  auto under_rc11 = heddle::explore(quiet({.iterations = 1'000'000, .strategy = "dfs"}, rc11), body);
  EXPECT_EQ(under_rc11.stats.weak_order_iterations, 0u);
  // Only that plain memory is not seen (the test is not built with heddle-c++).
  const auto rc11_caveats = under_rc11.stats.caveats();
  ASSERT_EQ(rc11_caveats.size(), 1u);
  EXPECT_NE(rc11_caveats[0].find("plain (non-atomic) memory is not seen"), std::string::npos) << rc11_caveats[0];
  EXPECT_NE(under_rc11.verdict().find(" schedules, verified under RC11"), std::string::npos) << under_rc11.verdict();
}

// Views travel with locks too: a relaxed store before an unlock is visible
// after the next lock of the same mutex, so this never fails.
TEST(weak_bugs, a_mutex_orders_relaxed_atomics) {
  auto r = heddle::explore(quiet({.iterations = 1'000'000, .strategy = "dfs"}, rc11), [] {
    heddle::atomic<int> x{0};
    heddle::mutex m;
    bool stored = false;
    heddle::thread a([&] {
      std::lock_guard lock(m);
      x.store(1, std::memory_order_relaxed);
      stored = true;
    });
    heddle::thread b([&] {
      std::lock_guard lock(m);
      if (stored) HEDDLE_ASSERT(x.load(std::memory_order_relaxed) == 1);
    });
    a.join();
    b.join();
    HEDDLE_ASSERT(x.load(std::memory_order_relaxed) == 1);  // join orders it too
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_TRUE(r.stats.exhausted);
}

// A replayed rc11 trace takes the same stale read: the trace header carries
// the model, and the choices are ordinary recorded decisions.
TEST(weak_bugs, an_rc11_bug_replays_from_its_trace) {
  auto body = [] { message_passing(std::memory_order_relaxed, std::memory_order_relaxed); };
  heddle::options o = quiet({.iterations = 10'000}, rc11);
  o.out = ::testing::TempDir() + "heddle-weak-memory-replay";
  auto r = heddle::explore(o, body);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.trace.header.memory_model, rc11);
  ASSERT_FALSE(r.trace_file.empty());

  heddle::options again = quiet({}, sc);  // the trace says rc11, not these options
  again.out.clear();
  again.replay = r.trace_file;
  auto replayed = heddle::explore(again, body);
  ASSERT_TRUE(replayed.bug) << replayed.report;
  EXPECT_EQ(replayed.bug->message, r.bug->message);
  EXPECT_FALSE(replayed.divergence);
}

// dpor under rc11 explores reads-from and modification-order choices: it
// finds both bugs, and verifies their twins, counting executions.
TEST(weak_bugs, dpor_under_rc11_finds_the_bugs_and_verifies_the_twins) {
  const auto dpor = quiet({.iterations = 1'000'000, .strategy = "dpor"}, rc11);
  auto dcl = heddle::explore(dpor, [] { double_checked_locking(std::memory_order_relaxed, std::memory_order_relaxed); });
  ASSERT_TRUE(dcl.bug) << dcl.verdict();
  EXPECT_EQ(dcl.bug->message, "assertion failed: a_saw == 42 && b_saw == 42");
  auto mp = heddle::explore(dpor, [] { message_passing(std::memory_order_relaxed, std::memory_order_relaxed); });
  ASSERT_TRUE(mp.bug) << mp.verdict();
  EXPECT_EQ(mp.bug->message, "assertion failed: data.load(std::memory_order_relaxed) == 7");

  auto dcl_fixed = heddle::explore(dpor, [] { double_checked_locking(std::memory_order_release, std::memory_order_acquire); });
  EXPECT_TRUE(dcl_fixed) << dcl_fixed.report;
  EXPECT_TRUE(dcl_fixed.stats.exhausted);
  EXPECT_NE(dcl_fixed.verdict().find(" executions, verified under RC11"), std::string::npos) << dcl_fixed.verdict();
  auto mp_fixed = heddle::explore(dpor, [] { message_passing(std::memory_order_release, std::memory_order_acquire); });
  // The consumer reads the flag's initial value (and stops) or its store
  // (then the data's store, the only one it may read): 2 executions.
  EXPECT_EQ(mp_fixed.verdict(), "passed: explored all 2 executions, verified under RC11 for atomics only");
}

// Push-button programs keep dfs for rc11: dpor counts executions by the
// engine's execution graph, which the fork server's strategy does not see.
// (tests/cli/cli_test.sh checks heddle run's one-line refusal.)

}  // namespace
