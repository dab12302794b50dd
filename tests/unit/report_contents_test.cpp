// What a bug report says (issue 14): bugs are grouped by root cause (a
// deadlock by where its operations block, a failing check by its location),
// the interleaving names the operation a notify woke, folds data choices into
// their operation's row and never cuts a source line, and the HTML lanes say
// what each step did.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/fiber_backend.hpp"
#include "heddle/heddle.hpp"
#include "runner/html_report.hpp"
#include "runner/report.hpp"
#include "runner/timeline.hpp"
#include "strategies/strategies.hpp"

namespace {

using heddle::detail::timeline;

heddle::options quiet(heddle::options o) {
  o.print_report = false;
  o.out = "";
  o.progress = false;
  return o;
}

// A lost wake-up: three consumers, one producer that makes three items and
// wakes one consumer. Which consumers end up waiting forever (one or two),
// and which operation notices the deadlock, vary; where they wait does not.
void lost_wakeup(bool fixed) {
  heddle::mutex m;
  heddle::condition_variable cv;
  int items = 0;
  auto consume = [&](const char* name) {
    heddle::this_thread::set_name(name);
    heddle::unique_lock<heddle::mutex> lock(m);
    while (items == 0) cv.wait(lock);  // the one place the consumers block
    --items;
  };
  heddle::thread c1(consume, "cons1"), c2(consume, "cons2"), c3(consume, "cons3");
  {
    heddle::lock_guard<heddle::mutex> guard(m);
    items = 3;
  }
  if (fixed) cv.notify_all();
  else cv.notify_one();
  c1.join();
  c2.join();
  c3.join();
}

TEST(report_contents, explore_groups_a_lost_wakeup_into_one_root_cause) {
  const heddle::result r = heddle::explore(
      quiet({.iterations = 600, .strategy = "random", .stop_on_first_bug = false}), [] { lost_wakeup(false); });
  ASSERT_TRUE(r.bug);
  ASSERT_EQ(r.bugs.size(), 1u) << [&] {
    std::string all;
    for (const heddle::bug_group& g : r.bugs) all += g.signature + "\n";
    return all;
  }();
  const heddle::bug_group& g = r.bugs.front();
  EXPECT_EQ(g.bug.kind, heddle::bug_kind::deadlock);
  EXPECT_EQ(g.count, r.stats.buggy_iterations);
  EXPECT_GT(g.count, 1u);
  // The signature is where the consumers block: this file, the wait line.
  EXPECT_NE(g.signature.find("deadlock|blocked at "), std::string::npos) << g.signature;
  EXPECT_NE(g.signature.find("report_contents_test.cpp:"), std::string::npos) << g.signature;
  EXPECT_EQ(g.signature.find("cons"), std::string::npos) << g.signature;
}

TEST(report_contents, lost_wakeup_fixed_twin_passes) {
  const heddle::result r =
      heddle::explore(quiet({.iterations = 600, .strategy = "random"}), [] { lost_wakeup(true); });
  EXPECT_FALSE(r.bug) << r.report;
}

// A failing check whose message carries a number that varies: one location,
// one root cause.
void racy_sum(bool fixed) {
  heddle::atomic<int> sum{0};
  heddle::mutex m;
  auto add = [&] {
    if (fixed) {
      heddle::lock_guard<heddle::mutex> guard(m);
      sum.store(sum.load() + 1);
      sum.store(sum.load() + 1);
    } else {
      sum.store(sum.load() + 1);
      sum.store(sum.load() + 1);
    }
  };
  heddle::thread a(add), b(add), c(add);
  a.join();
  b.join();
  c.join();
  const int seen = sum.load();
  HEDDLE_ASSERT_MSG(seen == 6, fmt::format("the sum is {}, not 6", seen));
}

TEST(report_contents, explore_groups_a_failing_check_by_its_location) {
  const heddle::result r = heddle::explore(
      quiet({.iterations = 2000, .strategy = "random", .stop_on_first_bug = false}), [] { racy_sum(false); });
  ASSERT_TRUE(r.bug);
  ASSERT_EQ(r.bugs.size(), 1u) << r.bugs[1].bug.message << " / " << r.bugs[0].bug.message;
  EXPECT_EQ(r.bugs[0].bug.kind, heddle::bug_kind::assertion);
  EXPECT_EQ(r.bugs[0].count, r.stats.buggy_iterations);
  EXPECT_EQ(r.bugs[0].signature, fmt::format("assertion|{}:{}", r.bug->where.file, r.bug->where.line));
}

TEST(report_contents, racy_sum_fixed_twin_passes) {
  const heddle::result r = heddle::explore(quiet({.iterations = 500, .strategy = "random"}), [] { racy_sum(true); });
  EXPECT_FALSE(r.bug) << r.report;
}

// The first bug's timeline, as the report shows it (no minimization: the
// recorded interleaving).
timeline first_bug_timeline(const std::function<void()>& body, heddle::options o) {
  o.minimize = false;
  const heddle::result r = heddle::explore(quiet(o), body);
  EXPECT_TRUE(r.bug);
  heddle::detail::fiber_backend fibers(256 * 1024);
  heddle::detail::engine engine(fibers, {.spurious_wakeups = o.spurious_wakeups});
  heddle::detail::replay_strategy replay(r.trace.steps);
  replay.begin_iteration(0, 0);
  const heddle::detail::iteration_outcome& outcome = engine.run(replay, body);
  return heddle::detail::make_timeline("original", r.trace, outcome);
}

TEST(report_contents, interleaving_names_the_operation_a_notify_woke_and_never_cuts_a_line) {
  const timeline t = first_bug_timeline([] { lost_wakeup(false); }, {.iterations = 600, .strategy = "random"});
  const std::string table = heddle::detail::format_interleaving(t);
  // The notify's row says whom it woke; its choice among the waiters is not
  // a row of its own.
  EXPECT_NE(table.find("signal condition_variable #"), std::string::npos) << table;
  const bool named = table.find(": wakes op 2 (cons1) (report_contents_test.cpp:") != std::string::npos ||
                     table.find(": wakes op 3 (cons2) (report_contents_test.cpp:") != std::string::npos ||
                     table.find(": wakes op 4 (cons3) (report_contents_test.cpp:") != std::string::npos ||
                     table.find(": wakes nobody (no waiter) (report_contents_test.cpp:") != std::string::npos;
  EXPECT_TRUE(named) << table;
  EXPECT_EQ(table.find(" choice "), std::string::npos) << table;
  EXPECT_EQ(table.find('~'), std::string::npos) << table;  // nothing cut
  // Every row's source line is whole: "(file:line)".
  std::size_t rows_with_lines = 0;
  for (std::size_t at = table.find("(report_contents_test.cpp:"); at != std::string::npos;
       at = table.find("(report_contents_test.cpp:", at + 1)) {
    const std::size_t close = table.find(')', at);
    ASSERT_NE(close, std::string::npos);
    EXPECT_GT(close - at, std::string("(report_contents_test.cpp:").size()) << table;
    ++rows_with_lines;
  }
  EXPECT_GT(rows_with_lines, 5u) << table;
}

// A timeline written by hand: a compare-exchange and its spurious-failure
// choice, then a notify_one with two waiters and its choice of waiter.
timeline hand_made() {
  timeline t;
  t.label = "original";
  t.operation_names = {"main", "pusher", "popper"};
  t.annotated = true;
  const auto add = [&](heddle::step_kind kind, heddle::point_kind point, heddle::object_id object, std::uint64_t value,
                       heddle::operation_id who, std::string obj, std::uint32_t line, std::string seen = {},
                       heddle::operation_id woke = 0) {
    heddle::detail::timeline_step s;
    s.step = {kind, point, object, value};
    s.operation = who;
    s.object = std::move(obj);
    s.file = "/src/stack.cpp";
    s.line = line;
    s.seen = std::move(seen);
    s.woke = woke;
    t.steps.push_back(s);
    t.trace.steps.push_back(s.step);
  };
  using heddle::point_kind;
  using heddle::step_kind;
  add(step_kind::schedule, point_kind::start, 0, 1, 1, "", 10);
  add(step_kind::schedule, point_kind::rmw, 3, 2, 2, "atomic #3", 21, "0x5000");
  add(step_kind::choose_bool, point_kind::rmw, 3, 1, 2, "atomic #3", 21, "0x5000");
  add(step_kind::schedule, point_kind::signal, 4, 3, 3, "condition_variable #4", 35);
  add(step_kind::choose_int, point_kind::signal, 4, 1, 3, "condition_variable #4", 35, "", 2);
  add(step_kind::schedule, point_kind::read, 3, 1, 1, "atomic #3", 12, "-1");
  return t;
}

TEST(report_contents, a_data_choice_folds_into_its_operations_row) {
  const timeline t = hand_made();
  const std::vector<heddle::detail::timeline_row> rows = t.rows();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(t.row_text(rows[1]), "rmw atomic #3: saw 0x5000, fails spuriously");
  EXPECT_EQ(t.row_text(rows[2]), "signal condition_variable #4: wakes op 2 (pusher)");
  EXPECT_EQ(t.row_text(rows[3]), "read atomic #3: saw -1");
  const std::string table = heddle::detail::format_interleaving(t);
  EXPECT_NE(table.find("rmw atomic #3: saw 0x5000, fails spuriously (stack.cpp:21)"), std::string::npos) << table;
  EXPECT_EQ(table.find("choice"), std::string::npos) << table;
}

// One operation, so every value is known: each load, read-modify-write and
// compare-exchange row says what it saw, a compare-exchange also what it
// expected and whether it succeeded, as Lincheck's traces do.
void values_seen() {
  heddle::atomic<int> x{5};  // object #2 (#1 is operation 1)
  heddle::atomic<bool> flag{true};
  heddle::atomic<int*> head{nullptr};
  heddle::atomic<unsigned> count{7};
  int expected = 4;
  (void)x.load();                                  // saw 5
  (void)x.compare_exchange_strong(expected, 9);    // saw 5, expected 4 (failed)
  (void)x.compare_exchange_strong(expected, 9);    // saw 5, expected 5 (succeeded)
  (void)x.fetch_add(-10);                          // saw 9
  (void)flag.exchange(false);                      // saw true
  (void)head.load();                               // saw nullptr
  (void)count.fetch_sub(1);                        // saw 7
  x.store(1);                                      // a write sees nothing
  HEDDLE_ASSERT(x.load() == 2);                    // saw 1
}

TEST(report_contents, each_load_and_compare_exchange_row_shows_the_value_it_saw) {
  const heddle::result r = heddle::explore(quiet({.iterations = 1, .strategy = "random", .minimize = false}), values_seen);
  ASSERT_TRUE(r.bug);
  const std::string report = r.report;
  for (const char* row : {"read atomic #2: saw 5 (report_contents_test.cpp:",
                          "rmw atomic #2: saw 5, expected 4 (failed) (report_contents_test.cpp:",
                          "rmw atomic #2: saw 5, expected 5 (succeeded) (report_contents_test.cpp:",
                          "rmw atomic #2: saw 9 (report_contents_test.cpp:",
                          "rmw atomic #3: saw true (report_contents_test.cpp:",
                          "read atomic #4: saw nullptr (report_contents_test.cpp:",
                          "rmw atomic #5: saw 7 (report_contents_test.cpp:",
                          "write atomic #2 (report_contents_test.cpp:",
                          "read atomic #2: saw 1 (report_contents_test.cpp:"})
    EXPECT_NE(report.find(row), std::string::npos) << row << "\n" << report;
}

TEST(report_contents, values_seen_survive_the_trace_file) {
  const timeline t = first_bug_timeline(values_seen, {.iterations = 1, .strategy = "random"});
  const std::vector<timeline> back = heddle::detail::timelines_from_json(heddle::detail::timeline_json(t));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(heddle::detail::format_interleaving(back.front()), heddle::detail::format_interleaving(t));
  std::size_t exchanges = 0;
  for (const heddle::detail::timeline_step& s : back.front().steps)
    if (!s.expected.empty()) {
      ++exchanges;
      EXPECT_EQ(s.seen, "5");
      EXPECT_EQ(s.succeeded, s.expected == "5");
    }
  EXPECT_EQ(exchanges, 2u);
}

TEST(report_contents, html_lanes_say_what_each_step_did) {
  const std::string html = heddle::detail::html_report({hand_made()});
  EXPECT_NE(html.find("<text class=\"step-label\""), std::string::npos);
  EXPECT_NE(html.find(">signal cv #4</text>"), std::string::npos) << html;
  EXPECT_NE(html.find(">wakes op 2 (pus\u2026</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("data-did=\"rmw atomic #3: saw 0x5000, fails spuriously\""), std::string::npos);
}

// Three waiters all blocked on one condition variable when main broadcasts:
// the notify_all row names every operation it woke, the second notify_all
// that nobody waits for says so.
void broadcast_to_three() {
  heddle::mutex m;
  heddle::condition_variable ready_cv, waiting_cv;
  bool ready = false;
  int waiting = 0;
  auto waiter = [&](const char* name) {
    heddle::this_thread::set_name(name);
    heddle::unique_lock<heddle::mutex> lock(m);
    ++waiting;
    waiting_cv.notify_one();
    while (!ready) ready_cv.wait(lock);
  };
  heddle::thread a(waiter, "w1"), b(waiter, "w2"), c(waiter, "w3");
  {
    heddle::unique_lock<heddle::mutex> lock(m);
    while (waiting < 3) waiting_cv.wait(lock);
    ready = true;
    ready_cv.notify_all();  // wakes all three
  }
  ready_cv.notify_all();  // wakes nobody
  a.join();
  b.join();
  c.join();
  HEDDLE_ASSERT_MSG(!ready, "the end");
}

TEST(report_contents, a_notify_all_row_names_every_operation_it_woke) {
  const heddle::result r = heddle::explore(
      quiet({.iterations = 1, .strategy = "random", .spurious_wakeups = false, .minimize = false}), broadcast_to_three);
  ASSERT_TRUE(r.bug);
  const std::string report = r.report;
  const std::size_t row = report.find(": wakes op ");
  std::size_t all = std::string::npos;
  for (std::size_t at = row; at != std::string::npos; at = report.find(": wakes op ", at + 1))
    if (report.find("op 2 (w1)", at) < report.find('\n', at) && report.find("op 3 (w2)", at) < report.find('\n', at) &&
        report.find("op 4 (w3)", at) < report.find('\n', at))
      all = at;
  EXPECT_NE(all, std::string::npos) << report;
  EXPECT_NE(report.find("signal condition_variable #"), std::string::npos) << report;
  EXPECT_NE(report.find(": wakes nobody (no waiter) (report_contents_test.cpp:"), std::string::npos) << report;
  // The trace file keeps the list.
  const timeline t = first_bug_timeline(broadcast_to_three,
                                        {.iterations = 1, .strategy = "random", .spurious_wakeups = false});
  const std::vector<timeline> back = heddle::detail::timelines_from_json(heddle::detail::timeline_json(t));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(heddle::detail::format_interleaving(back.front()), heddle::detail::format_interleaving(t));
  std::size_t broadcasts = 0;
  for (const heddle::detail::timeline_step& s : back.front().steps)
    if (s.woke == heddle::detail::step_record::woke_several) {
      ++broadcasts;
      EXPECT_EQ(s.woken.size(), 3u);
    }
  EXPECT_EQ(broadcasts, 1u);
}

// Finding a bug formats no report until somebody reads it; read, it is the
// report print_report prints, byte for byte.
TEST(report_contents, a_bug_nobody_reads_is_not_formatted_and_reads_as_printed) {
  const auto racy = [] { racy_sum(false); };
  heddle::result quietly = heddle::explore(quiet({.iterations = 2000, .strategy = "random", .minimize = false}), racy);
  ASSERT_TRUE(quietly.bug);
  EXPECT_FALSE(quietly.report.formatted());
  EXPECT_FALSE(quietly.bugs.front().report.formatted());
  heddle::options loud = quiet({.iterations = 2000, .strategy = "random", .minimize = false});
  loud.print_report = true;
  testing::internal::CaptureStderr();
  const heddle::result printed = heddle::explore(loud, racy);
  const std::string said = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(printed.bug);
  EXPECT_TRUE(printed.report.formatted());
  const heddle::result copy = quietly;  // copies share one text
  EXPECT_EQ(copy.report.str(), said);
  EXPECT_TRUE(quietly.report.formatted());
  EXPECT_EQ(quietly.bugs.front().report.str(), said);
  EXPECT_NE(said.find("assertion: the sum is "), std::string::npos) << said;
}

}  // namespace
