// heddle's Asio model (include/heddle/asio.hpp, docs/asio.md): what the
// controlled io_context, its strands and steady_timer guarantee under
// exploration, and the two Asio bug programs with their fixed twins (a timer
// racing a post, a strand bypassed by one handler): each found by the default
// strategy within 10,000 iterations with its kind and message, its twin clean
// over 2,000, its trace replayed 100 times out of 100.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "heddle/asio.hpp"
#include "heddle/explore.hpp"
#include "heddle/future.hpp"
#include "heddle/shared.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "heddle/trace.hpp"
#include "../support/temp_trace_file.hpp"

using namespace std::chrono_literals;

namespace {

heddle::options quiet(std::uint64_t iterations, std::string strategy = "random") {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = std::move(strategy);
  o.print_report = false;
  o.progress = false;
  o.out.clear();
  return o;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// --- the bug programs and their twins --------------------------------------------

// A request with a timeout. The reply comes from another thread as a posted
// handler, which cancels the timeout timer. But a timer that has already
// fired is not pending any more: cancel() finds nothing, and its handler runs
// with success after the reply (Asio's documented trap). The fix checks the
// request's state in the timeout handler instead of trusting the error code.
void timer_races_post(bool fixed) {
  heddle::asio::io_context ctx;
  heddle::asio::steady_timer timeout(ctx, 100ms);
  bool replied = false;
  bool timed_out = false;
  timeout.async_wait([&](asio::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    if (fixed && replied) return;
    timed_out = true;
    HEDDLE_ASSERT_MSG(!replied, "the request timed out after its reply was handled");
  });
  heddle::thread server([&] {
    heddle::this_thread::set_name("server");
    asio::post(ctx, [&] {
      if (timed_out) return;
      replied = true;
      timeout.cancel();
    });
  });
  ctx.run();
  server.join();
}

// Three handlers count bytes through a strand; a fourth (a statistics update)
// is posted to the context directly, so with two run() threads it can overlap
// them and lose an update. The fix posts it through the strand too.
void strand_misuse(bool fixed) {
  heddle::asio::io_context ctx;
  auto strand = asio::make_strand(ctx);
  heddle::shared<int> bytes{0};
  for (int i = 0; i < 3; ++i) asio::post(strand, [&] { bytes = bytes + 10; });
  auto statistics = [&] { bytes = bytes + 1; };
  if (fixed) {
    asio::post(strand, statistics);
  } else {
    asio::post(ctx, statistics);  // bypasses the strand
  }
  heddle::thread second([&] {
    heddle::this_thread::set_name("second run()");
    ctx.run();
  });
  ctx.run();
  second.join();
  HEDDLE_ASSERT_MSG(bytes == 31, "lost update: a handler posted past the strand overlapped the strand's handlers");
}

struct program {
  const char* name;
  void (*body)(bool fixed);
  heddle::bug_kind kind;
  const char* message;
};

const program programs[] = {
    {"timer_races_post", timer_races_post, heddle::bug_kind::assertion,
     "the request timed out after its reply was handled"},
    {"strand_misuse", strand_misuse, heddle::bug_kind::assertion,
     "lost update: a handler posted past the strand overlapped the strand's handlers"},
};

// Test names show the program, not its bytes.
void PrintTo(const program& p, std::ostream* os) { *os << p.name; }

class asio_bug : public testing::TestWithParam<program> {};

TEST_P(asio_bug, is_found_by_the_default_strategy_within_10000_iterations_and_replays_100_of_100) {
  const program& p = GetParam();
  heddle::options o = quiet(10'000, heddle::options{}.strategy);
  const heddle::test_identity id{.test = std::string("asio.") + p.name, .program = ""};
  const heddle::result found = heddle::explore(o, [&] { p.body(false); }, id);
  ASSERT_TRUE(found.bug) << p.name << ": no bug in " << found.stats.iterations << " iterations";
  EXPECT_EQ(found.bug->kind, p.kind) << found.report;
  EXPECT_TRUE(contains(found.bug->message, p.message)) << found.bug->message;
  std::printf("[ found    ] %s by %s in %llu iteration(s)\n", p.name, o.strategy.c_str(),
              static_cast<unsigned long long>(found.stats.iterations));

  const temp_trace_file file(std::string(p.name) + ".json", heddle::to_json(found.trace));
  heddle::options r = quiet(1, o.strategy);
  r.replay = file.path();
  int reproduced = 0;
  for (int i = 0; i < 100; ++i) {
    const heddle::result again = heddle::explore(r, [&] { p.body(false); }, id);
    const bool same = again.bug && !again.divergence && again.bug->kind == found.bug->kind &&
                      again.bug->message == found.bug->message && again.bug->step == found.bug->step &&
                      again.trace.steps == found.trace.steps;
    if (same) ++reproduced;
    else if (reproduced == i) ADD_FAILURE() << "replay " << i << " differs: " << again.divergence.value_or("");
  }
  EXPECT_EQ(reproduced, 100);
}

TEST_P(asio_bug, fixed_twin_passes_2000_iterations_of_the_default_strategy) {
  const program& p = GetParam();
  const heddle::result r = heddle::explore(quiet(2000, heddle::options{}.strategy), [&] { p.body(true); });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(r.stats.iterations, 2000u);
  EXPECT_EQ(r.stats.max_steps_hits, 0u);
}

TEST_P(asio_bug, same_seed_finds_the_same_bug_on_os_threads_and_in_two_worker_processes) {
  const program& p = GetParam();
  const heddle::test_identity id{.test = std::string("asio.") + p.name, .program = ""};
  const heddle::options o = quiet(10'000, heddle::options{}.strategy);
  const heddle::result fibers = heddle::explore(o, [&] { p.body(false); }, id);
  ASSERT_TRUE(fibers.bug);
  heddle::options threads = o;
  threads.backend = "threads";
  heddle::options workers = o;
  workers.parallel = 2;
  for (const heddle::options& other : {threads, workers}) {
    const heddle::result r = heddle::explore(other, [&] { p.body(false); }, id);
    ASSERT_TRUE(r.bug) << other.backend << " parallel " << other.parallel;
    EXPECT_EQ(r.bug->message, fibers.bug->message);
    EXPECT_EQ(r.trace.steps, fibers.trace.steps) << other.backend << " parallel " << other.parallel;
  }
}

INSTANTIATE_TEST_SUITE_P(asio, asio_bug, testing::ValuesIn(programs),
                         [](const testing::TestParamInfo<program>& entry) { return std::string(entry.param.name); });

// --- post, dispatch, defer, run ------------------------------------------------

TEST(asio_io_context, one_run_thread_runs_posted_handlers_in_posting_order_and_dispatch_inline) {
  const heddle::result r = heddle::explore(quiet(300), [] {
    heddle::asio::io_context ctx;
    std::vector<int> log;
    asio::post(ctx, [&] {
      log.push_back(1);
      asio::dispatch(ctx, [&] { log.push_back(2); });  // inside run(): runs here
      log.push_back(3);
    });
    asio::dispatch(ctx, [&] { log.push_back(4); });  // outside run(): queued
    asio::post(ctx.get_executor(), [&] { log.push_back(5); });
    const std::size_t ran = ctx.run();
    HEDDLE_ASSERT(ran == 3);
    HEDDLE_ASSERT((log == std::vector<int>{1, 2, 3, 4, 5}));
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(asio_io_context, handlers_on_two_run_threads_start_in_either_order) {
  std::set<std::string> orders;
  const heddle::result r = heddle::explore(quiet(300), [&] {
    heddle::asio::io_context ctx;
    std::string order;
    asio::post(ctx, [&] { order += 'a'; });
    asio::post(ctx, [&] { order += 'b'; });
    heddle::thread second([&] { ctx.run(); });
    ctx.run();
    second.join();
    orders.insert(order);
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(orders, (std::set<std::string>{"ab", "ba"}));
}

TEST(asio_io_context, run_returns_when_the_work_runs_out_and_the_context_stays_stopped_until_restart) {
  const heddle::result r = heddle::explore(quiet(100), [] {
    heddle::asio::io_context ctx;
    int n = 0;
    asio::post(ctx, [&] { ++n; });
    HEDDLE_ASSERT(ctx.run() == 1);
    HEDDLE_ASSERT(ctx.stopped());
    asio::post(ctx, [&] { ++n; });
    HEDDLE_ASSERT(ctx.run() == 0);  // stopped
    ctx.restart();
    HEDDLE_ASSERT(ctx.run() == 1);
    HEDDLE_ASSERT(n == 2);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(asio_io_context, defer_from_a_handler_waits_for_the_handler_to_return) {
  const heddle::result r = heddle::explore(quiet(100), [] {
    heddle::asio::io_context ctx;
    std::vector<int> log;
    asio::post(ctx, [&] {
      asio::defer(ctx, [&] { log.push_back(2); });
      asio::post(ctx, [&] { log.push_back(1); });  // posted after, queued before
    });
    ctx.run();
    HEDDLE_ASSERT((log == std::vector<int>{1, 2}));
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(asio_io_context, run_for_gives_up_at_its_virtual_deadline_and_poll_never_waits) {
  const heddle::result r = heddle::explore(quiet(100), [] {
    heddle::asio::io_context ctx;
    auto work = asio::make_work_guard(ctx);
    int n = 0;
    asio::post(ctx, [&] { ++n; });
    HEDDLE_ASSERT(ctx.poll() == 1);
    HEDDLE_ASSERT(ctx.poll() == 0);  // nothing queued: returns at once despite the work guard
    HEDDLE_ASSERT(ctx.run_for(10ms) == 0);
    HEDDLE_ASSERT(heddle::now() == std::chrono::nanoseconds(10ms).count());
    HEDDLE_ASSERT(n == 1);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(asio_io_context, stop_from_another_thread_ends_run_with_work_outstanding) {
  const heddle::result r = heddle::explore(quiet(300), [] {
    heddle::asio::io_context ctx;
    auto work = asio::make_work_guard(ctx);
    heddle::thread stopper([&] { ctx.stop(); });
    ctx.run();
    stopper.join();
    HEDDLE_ASSERT(ctx.stopped());
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(asio_io_context, use_outside_a_controlled_iteration_is_one_clear_line_and_an_abort) {
  EXPECT_DEATH(
      {
        heddle::asio::io_context ctx;
        asio::post(ctx, [] {});
      },
      "heddle: posting to a heddle::asio::io_context called outside a controlled iteration");
}

TEST(asio_io_context, a_run_that_nothing_will_feed_is_reported_as_a_deadlock) {
  const heddle::result r = heddle::explore(quiet(10), [] {
    heddle::asio::io_context ctx;
    auto work = asio::make_work_guard(ctx);  // never reset: real Asio would hang here
    asio::post(ctx, [] {});
    ctx.run();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_TRUE(contains(r.bug->message, "operation 1 (main) waits for channel #")) << r.bug->message;
}

TEST(asio_io_context, a_handler_blocking_on_a_later_handler_of_its_one_thread_is_reported_as_a_deadlock) {
  const heddle::result r = heddle::explore(quiet(10), [] {
    heddle::asio::io_context ctx;
    heddle::promise<int> answer;
    asio::post(ctx, [&] {
      heddle::future<int> f = answer.get_future();
      HEDDLE_ASSERT(f.get() == 42);  // sync over async: only the next handler sets it
    });
    asio::post(ctx, [&] { answer.set_value(42); });
    ctx.run();
  });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::deadlock);
  EXPECT_TRUE(contains(r.bug->message, "operation 1 (main) waits for future #")) << r.bug->message;
}

// --- strands -------------------------------------------------------------------

// Handlers that would notice an overlap: each enters, reaches a point, leaves.
void overlap_checked_handlers(bool through_strand, int runners) {
  heddle::asio::io_context ctx;
  auto strand = asio::make_strand(ctx);
  int inside = 0;
  std::vector<int> order;
  for (int i = 0; i < 4; ++i) {
    auto h = [&, i] {
      HEDDLE_ASSERT_MSG(++inside == 1, "two handlers overlap");
      heddle::this_thread::yield();
      order.push_back(i);
      --inside;
    };
    if (through_strand) {
      asio::post(strand, h);
    } else {
      asio::post(ctx, h);
    }
  }
  std::vector<heddle::thread> threads;
  for (int t = 1; t < runners; ++t) threads.emplace_back([&] { ctx.run(); });
  ctx.run();
  for (auto& t : threads) t.join();
  if (through_strand) HEDDLE_ASSERT((order == std::vector<int>{0, 1, 2, 3}));
}

TEST(asio_strand, serialises_its_handlers_in_submission_order_on_three_run_threads) {
  const heddle::result r = heddle::explore(quiet(1000), [] { overlap_checked_handlers(true, 3); });
  EXPECT_TRUE(r) << r.report;
  const heddle::result p = heddle::explore(quiet(1000, "pct:3"), [] { overlap_checked_handlers(true, 3); });
  EXPECT_TRUE(p) << p.report;
}

TEST(asio_strand, the_same_handlers_posted_to_the_context_overlap) {
  const heddle::result r = heddle::explore(quiet(1000), [] { overlap_checked_handlers(false, 3); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->message, "two handlers overlap");
}

TEST(asio_strand, dispatch_inside_the_strand_runs_inline_and_running_in_this_thread_knows) {
  const heddle::result r = heddle::explore(quiet(200), [] {
    heddle::asio::io_context ctx;
    auto strand = asio::make_strand(ctx.get_executor());
    std::vector<int> log;
    asio::post(strand, [&] {
      HEDDLE_ASSERT(strand.running_in_this_thread());
      log.push_back(1);
      asio::dispatch(strand, [&] { log.push_back(2); });
      log.push_back(3);
    });
    asio::post(ctx, [&] { HEDDLE_ASSERT(!strand.running_in_this_thread()); });
    heddle::thread second([&] { ctx.run(); });
    ctx.run();
    second.join();
    HEDDLE_ASSERT((log == std::vector<int>{1, 2, 3}));
  });
  EXPECT_TRUE(r) << r.report;
}

// --- timers --------------------------------------------------------------------

TEST(asio_timer, cancel_aborts_a_pending_wait_but_not_one_that_already_fired) {
  std::set<std::string> outcomes;
  const heddle::result r = heddle::explore(quiet(500), [&] {
    heddle::asio::io_context ctx;
    heddle::asio::steady_timer t(ctx, 1h);
    asio::error_code seen = asio::error::would_block;
    heddle::virtual_time fired_at = -1;
    t.async_wait([&](asio::error_code ec) {
      seen = ec;
      fired_at = heddle::now();
    });
    const std::size_t cancelled = t.cancel();  // the timer may fire first: an hour can pass
    ctx.run();
    if (cancelled == 1) {
      HEDDLE_ASSERT(seen == asio::error::operation_aborted);
      HEDDLE_ASSERT(fired_at < std::chrono::nanoseconds(1h).count());
      outcomes.insert("aborted");
    } else {
      HEDDLE_ASSERT(!seen);
      HEDDLE_ASSERT(fired_at >= std::chrono::nanoseconds(1h).count());
      outcomes.insert("fired");
    }
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(outcomes, (std::set<std::string>{"aborted", "fired"}));
}

TEST(asio_timer, timers_of_one_context_fire_in_expiry_order_on_virtual_time) {
  const heddle::result r = heddle::explore(quiet(300), [] {
    heddle::asio::io_context ctx;
    heddle::asio::steady_timer late(ctx, 20ms);
    heddle::asio::steady_timer early(ctx, 10ms);
    std::vector<int> log;
    late.async_wait([&](asio::error_code ec) {
      HEDDLE_ASSERT(!ec);
      HEDDLE_ASSERT(heddle::now() >= std::chrono::nanoseconds(20ms).count());
      log.push_back(20);
    });
    early.async_wait([&](asio::error_code) { log.push_back(10); });
    ctx.run();
    HEDDLE_ASSERT((log == std::vector<int>{10, 20}));
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(asio_timer, a_wait_bound_to_a_strand_never_overlaps_the_strands_handlers) {
  const heddle::result r = heddle::explore(quiet(1000), [] {
    heddle::asio::io_context ctx;
    auto strand = asio::make_strand(ctx);
    heddle::asio::steady_timer t(ctx, 5ms);
    int inside = 0;
    auto guarded = [&] {
      HEDDLE_ASSERT_MSG(++inside == 1, "a timer handler overlapped a strand handler");
      heddle::this_thread::yield();
      --inside;
    };
    t.async_wait(asio::bind_executor(strand, [&](asio::error_code) { guarded(); }));
    for (int i = 0; i < 2; ++i) asio::post(strand, guarded);
    heddle::thread second([&] { ctx.run(); });
    ctx.run();
    second.join();
  });
  EXPECT_TRUE(r) << r.report;
}

asio::awaitable<void> sleepy(std::vector<std::string>& log, std::string name, std::chrono::milliseconds d) {
  heddle::asio::steady_timer t(co_await asio::this_coro::executor, d);
  log.push_back(name + " sleeps");
  co_await t.async_wait(asio::use_awaitable);
  HEDDLE_ASSERT(heddle::now() >= std::chrono::nanoseconds(d).count());
  log.push_back(name + " woke");
}

asio::awaitable<int> answer_after_a_timer() {
  heddle::asio::steady_timer t(co_await asio::this_coro::executor, 5ms);
  co_await t.async_wait(asio::use_awaitable);
  co_return 42;
}

TEST(asio_co_spawn, awaitables_co_await_timers_on_virtual_time) {
  const heddle::result r = heddle::explore(quiet(300), [] {
    heddle::asio::io_context ctx;
    std::vector<std::string> log;
    int answer = 0;
    asio::co_spawn(ctx, sleepy(log, "a", 10ms), asio::detached);
    asio::co_spawn(ctx, sleepy(log, "b", 30ms), asio::detached);
    asio::co_spawn(ctx, answer_after_a_timer(), [&](std::exception_ptr e, int v) {
      HEDDLE_ASSERT(!e);
      answer = v;
    });
    ctx.run();
    HEDDLE_ASSERT(answer == 42);
    HEDDLE_ASSERT((log == std::vector<std::string>{"a sleeps", "b sleeps", "a woke", "b woke"}));
  });
  EXPECT_TRUE(r) << r.report;
}

// docs/asio.md's coroutine example.
asio::awaitable<void> heartbeat(int& beats) {
  heddle::asio::steady_timer t(co_await asio::this_coro::executor);
  for (int i = 0; i < 3; ++i) {
    t.expires_after(1s);
    co_await t.async_wait(asio::use_awaitable);
    ++beats;
  }
}

TEST(asio_co_spawn, the_documented_heartbeat_beats_three_times_in_three_virtual_seconds) {
  const heddle::result r = heddle::explore(quiet(100), [] {
    heddle::asio::io_context ctx;
    int beats = 0;
    asio::co_spawn(ctx, heartbeat(beats), asio::detached);
    ctx.run();
    HEDDLE_ASSERT(beats == 3);
    HEDDLE_ASSERT(heddle::now() == std::chrono::nanoseconds(3s).count());
  });
  EXPECT_TRUE(r) << r.report;
}

asio::awaitable<void> strand_worker(heddle::shared<int>& counter, int& inside) {
  for (int i = 0; i < 2; ++i) {
    HEDDLE_ASSERT_MSG(++inside == 1, "two coroutines of one strand overlap");
    counter = counter + 1;
    --inside;
    heddle::asio::steady_timer t(co_await asio::this_coro::executor, 1ms);  // the strand, type-erased
    co_await t.async_wait(asio::use_awaitable);
  }
}

TEST(asio_co_spawn, coroutines_spawned_on_one_strand_never_overlap_on_two_run_threads) {
  const heddle::result r = heddle::explore(quiet(1000), [] {
    heddle::asio::io_context ctx;
    auto strand = asio::make_strand(ctx);
    heddle::shared<int> counter{0};
    int inside = 0;
    asio::co_spawn(strand, strand_worker(counter, inside), asio::detached);
    asio::co_spawn(strand, strand_worker(counter, inside), asio::detached);
    heddle::thread second([&] { ctx.run(); });
    ctx.run();
    second.join();
    HEDDLE_ASSERT(counter == 4);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(asio_co_spawn, an_exception_in_a_coroutine_reaches_the_completion_handler) {
  const heddle::result r = heddle::explore(quiet(50), [] {
    heddle::asio::io_context ctx;
    bool caught = false;
    asio::co_spawn(
        ctx, []() -> asio::awaitable<void> { throw std::runtime_error("boom"); co_return; },
        [&](std::exception_ptr e) { caught = e != nullptr; });
    ctx.run();
    HEDDLE_ASSERT(caught);
  });
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
