// The semantics of heddle::task (docs/tasks.md): values and exceptions reach
// the awaiter, run() starts a new chain, every resumption is a new operation
// (in its own chain after a yield, in the completer's after a co_await),
// when_all/when_any, delay on virtual time, task_completion_source, detached
// tasks, the opt-in unawaited check, and behaviour outside control.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <string>

#include "engine/engine.hpp"
#include "heddle/explore.hpp"
#include "heddle/task.hpp"
#include "task_programs.hpp"

namespace {

using heddle::task;
using namespace std::chrono_literals;

heddle::options quiet(std::uint64_t iterations = 50, std::string_view strategy = "random") {
  return heddle_tasks::quiet(iterations, strategy);
}

std::uint32_t my_chain() {
  return heddle::detail::engine::current()->chain_of(heddle::current_operation());
}

task<int> forty_two() {
  co_await heddle::yield();
  co_return 42;
}
task<int> add_one(task<int> t) { co_return co_await std::move(t) + 1; }

TEST(task_values, co_return_reaches_the_awaiter_and_get) {
  int got = 0, direct = 0;
  const heddle::result r = heddle::explore(quiet(), [&] {
    got = heddle::run(add_one(forty_two())).get();
    direct = forty_two().get();  // not started: get() starts it as run() does
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(got, 43);
  EXPECT_EQ(direct, 42);
}

task<int> fails() {
  co_await heddle::yield();
  throw std::runtime_error("no answer");
}
task<std::string> catches() {
  try {
    co_await fails();
  } catch (const std::runtime_error& e) {
    co_return e.what();
  }
  co_return "nothing thrown";
}

TEST(task_exceptions, propagate_to_the_awaiter_and_to_get) {
  std::string caught, from_get;
  const heddle::result r = heddle::explore(quiet(), [&] {
    caught = heddle::run(catches()).get();
    auto t = heddle::run(fails());
    try {
      t.get();
    } catch (const std::runtime_error& e) {
      from_get = e.what();
    }
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(caught, "no answer");
  EXPECT_EQ(from_get, "no answer");
}

TEST(task_exceptions, one_nobody_catches_in_the_test_body_is_an_uncaught_exception) {
  const heddle::result r = heddle::explore(quiet(1), [] { heddle::run(fails()).get(); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::uncaught_exception);
  EXPECT_NE(r.bug->message.find("no answer"), std::string::npos) << r.bug->message;
}

task<void> throw_later() {
  co_await heddle::yield();
  throw std::logic_error("lost in the background");
}

TEST(task_exceptions, of_a_detached_task_are_an_uncaught_exception_bug) {
  const heddle::result r = heddle::explore(quiet(1), [] { heddle::detach(throw_later(), "background"); });
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::uncaught_exception);
  EXPECT_EQ(r.bug->message, "uncaught exception in detached task 'background': lost in the background");
}

// --- operations and chains ------------------------------------------------------

struct observed {
  heddle::operation_id before = 0, after = 0;
  std::uint32_t chain_before = 0, chain_after = 0;
};

task<void> yield_once(observed& o) {
  o.before = heddle::current_operation();
  o.chain_before = my_chain();
  co_await heddle::yield();
  o.after = heddle::current_operation();
  o.chain_after = my_chain();
}

TEST(task_chains, a_yield_resumes_as_a_new_operation_in_the_same_chain) {
  observed o;
  std::uint32_t main_chain = 0;
  const heddle::result r = heddle::explore(quiet(20), [&] {
    main_chain = my_chain();
    heddle::run(yield_once(o)).get();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_NE(o.before, o.after);
  EXPECT_GT(o.after, o.before);
  EXPECT_EQ(o.chain_before, o.chain_after);
  EXPECT_NE(o.chain_before, main_chain);  // run(): a new chain
}

task<std::uint32_t> chain_at_end() {
  co_await heddle::yield();
  co_return my_chain();
}
task<void> await_other_chain(std::uint32_t& completer, std::uint32_t& mine_before, std::uint32_t& mine_after) {
  auto t = heddle::run(chain_at_end());
  mine_before = my_chain();
  completer = co_await t;
  mine_after = my_chain();
}

TEST(task_chains, the_continuation_of_co_await_joins_the_chain_that_completed_the_task) {
  for (const char* strategy : {"random", "pctt:2", "pct:3"}) {
    std::uint32_t completer = 0, before = 0, after = 0;
    const heddle::result r = heddle::explore(quiet(30, strategy), [&] {
      heddle::run(await_other_chain(completer, before, after)).get();
      HEDDLE_ASSERT(completer != before && after == completer);
    });
    EXPECT_FALSE(r.bug) << strategy << ": " << r.report;
  }
}

TEST(task_chains, completing_a_source_moves_its_awaiter_into_the_setters_chain) {
  const heddle::result r = heddle::explore(quiet(30), [] {
    heddle::task_completion_source<int> source;
    std::uint32_t setter = 0, awaiter = 0;
    auto waiting = heddle::run([](heddle::task_completion_source<int>& s, std::uint32_t& seen) -> task<void> {
      co_await s.get_task();
      seen = my_chain();
    }(source, awaiter));
    auto setting = heddle::run([](heddle::task_completion_source<int>& s, std::uint32_t& chain) -> task<void> {
      co_await heddle::yield();
      chain = my_chain();
      s.set_value(1);
    }(source, setter));
    heddle::wait_all(waiting, setting);
    HEDDLE_ASSERT(setter == awaiter);
  });
  EXPECT_FALSE(r.bug) << r.report;
}

// --- when_all, when_any ---------------------------------------------------------------

TEST(task_when, when_any_returns_the_first_to_complete_and_the_loser_keeps_running) {
  std::size_t winner = 9;
  bool loser_finished = false;
  const heddle::result r = heddle::explore(quiet(30), [&] {
    heddle::task_completion_source<void> gate;
    auto body = [](heddle::task_completion_source<void>& g, std::size_t& w, bool& finished) -> task<void> {
      auto quick = heddle::run(forty_two());
      auto slow = heddle::run([](heddle::task_completion_source<void>& g2, bool& f) -> task<void> {
        co_await g2.get_task();
        f = true;
      }(g, finished));
      w = co_await heddle::when_any(quick, slow);
      g.set_value();
      co_await slow;
    };
    heddle::run(body(gate, winner, loser_finished)).get();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(winner, 0u);
  EXPECT_TRUE(loser_finished);
}

TEST(task_when, when_all_waits_for_every_task_and_rethrows_the_first_exception) {
  int sum = 0;
  std::string error;
  const heddle::result r = heddle::explore(quiet(30), [&] {
    auto body = [](int& s, std::string& err) -> task<void> {
      auto a = heddle::run(forty_two());
      auto b = heddle::run(forty_two());
      co_await heddle::when_all(a, b);
      s = a.get() + b.get();
      auto c = heddle::run(fails());
      try {
        co_await heddle::when_all(a, c);
      } catch (const std::runtime_error& e) {
        err = e.what();
      }
    };
    heddle::run(body(sum, error)).get();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(sum, 84);
  EXPECT_EQ(error, "no answer");
}

// --- virtual time -------------------------------------------------------------------

TEST(task_delay, waits_on_virtual_time_not_the_clock) {
  heddle::virtual_time before = -1, after = -1;
  const auto wall = std::chrono::steady_clock::now();
  const heddle::result r = heddle::explore(quiet(5), [&] {
    heddle::run([](heddle::virtual_time& b, heddle::virtual_time& a) -> task<void> {
      b = heddle::now();
      co_await heddle::delay(10s);
      a = heddle::now();
    }(before, after)).get();
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_GE(after - before, std::chrono::nanoseconds(10s).count());
  EXPECT_LT(std::chrono::steady_clock::now() - wall, 5s);
}

// --- task_completion_source ---------------------------------------------------------

TEST(task_completion_source, set_exception_reaches_the_awaiter) {
  std::string seen;
  const heddle::result r = heddle::explore(quiet(10), [&] {
    heddle::task_completion_source<int> source;
    source.set_exception(std::make_exception_ptr(std::runtime_error("refused")));
    try {
      source.get_task().get();
    } catch (const std::runtime_error& e) {
      seen = e.what();
    }
  });
  EXPECT_FALSE(r.bug) << r.report;
  EXPECT_EQ(seen, "refused");
}

// --- the unawaited check --------------------------------------------------------------

task<void> slow_work() {
  co_await heddle::delay(1s);
  co_await heddle::yield();
}

TEST(unawaited_tasks, are_reported_only_when_the_test_asks) {
  const heddle::result quiet_run = heddle::explore(quiet(50), [] { auto forgotten = heddle::run(slow_work(), "slow"); });
  EXPECT_FALSE(quiet_run.bug) << quiet_run.report;
  const heddle::result checked = heddle::explore(quiet(50), [] {
    heddle::unawaited_task_check check;
    auto forgotten = heddle::run(slow_work(), "slow");
  });
  ASSERT_TRUE(checked.bug);
  EXPECT_EQ(checked.bug->kind, heddle::bug_kind::liveness);
  EXPECT_NE(checked.bug->message.find("task 'slow' started at"), std::string::npos) << checked.bug->message;
  EXPECT_NE(checked.bug->message.find("was never awaited and had not completed when the test body ended"),
            std::string::npos)
      << checked.bug->message;
}

TEST(unawaited_tasks, awaited_and_detached_tasks_are_not_reported) {
  const heddle::result r = heddle::explore(quiet(50), [] {
    heddle::unawaited_task_check check;
    auto awaited = heddle::run(slow_work(), "awaited");
    heddle::detach(slow_work(), "detached");
    awaited.wait();
  });
  EXPECT_FALSE(r.bug) << r.report;
}

// --- outside control, and on OS threads ----------------------------------------------------

TEST(task_outside_control, run_completes_the_task_at_once_on_the_calling_thread) {
  auto t = heddle::run(add_one(forty_two()));
  EXPECT_TRUE(t.done());
  EXPECT_EQ(t.get(), 43);
}

TEST(task_backends, a_task_program_finds_the_same_bug_with_the_same_trace_on_threads) {
  const auto& lost_update = heddle_tasks::all_programs().front();
  heddle::options fibers = quiet(2000, "random");
  heddle::options threads = fibers;
  threads.backend = "threads";
  const heddle::result on_fibers = heddle::explore(fibers, lost_update.buggy);
  const heddle::result on_threads = heddle::explore(threads, lost_update.buggy);
  ASSERT_TRUE(on_fibers.bug);
  ASSERT_TRUE(on_threads.bug) << on_threads.report;
  EXPECT_EQ(on_fibers.trace.steps, on_threads.trace.steps);
  EXPECT_EQ(on_fibers.bug->message, on_threads.bug->message);
}

// --- coroutine frames ------------------------------------------------------------------------

TEST(task_frames, a_freed_frame_serves_the_next_frame_of_its_size_class_on_the_same_thread) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "frames are not kept under a sanitizer";
#endif
  namespace t = heddle::detail::tasks;
  void* small = t::allocate_frame(100);
  t::free_frame(small, 100);
  // Were the frame given back to malloc, malloc would hand it out here.
  void* plain = ::operator new(128);
  EXPECT_NE(plain, small);
  EXPECT_EQ(t::allocate_frame(120), small);  // 65..128 bytes: one class
  void* other = t::allocate_frame(120);       // none kept now: a new block
  EXPECT_NE(other, small);
  t::free_frame(small, 120);
  t::free_frame(other, 120);
  void* larger = t::allocate_frame(200);  // another class: not a kept 128-byte block
  EXPECT_NE(larger, small);
  EXPECT_NE(larger, other);
  t::free_frame(larger, 200);
  ::operator delete(plain);
}

task<long> sum_of_a_large_frame(int base) {
  std::array<long, 400> values{};  // 3.2 KB: above the kept sizes
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = base + static_cast<long>(i);
  long sum = 0;
  for (long v : values) sum += v;
  co_return sum;
}
task<long> sum_of_a_small_frame(int base) {
  std::array<long, 40> values{};  // about 400 bytes: a kept size
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = base + static_cast<long>(i);
  long sum = 0;
  for (long v : values) sum += v;
  co_return sum;
}
task<long> children_of_two_sizes(int n) {
  long total = 0;
  for (int i = 0; i < n; ++i) {
    total += co_await sum_of_a_small_frame(i);
    total += co_await sum_of_a_large_frame(i);
    co_await heddle::yield();
  }
  co_return total;
}

TEST(task_frames, children_of_every_frame_size_started_inline_again_and_again_keep_their_values) {
  long got_a = 0, got_b = 0;
  const heddle::result r = heddle::explore(quiet(20), [&] {
    auto a = heddle::run(children_of_two_sizes(30), "a");
    auto b = heddle::run(children_of_two_sizes(30), "b");
    got_a = a.get();
    got_b = b.get();
  });
  EXPECT_FALSE(r.bug) << r.report;
  // For each i < 30: 40 values from i and 400 values from i.
  long expected = 0;
  for (long i = 0; i < 30; ++i) expected += 40 * i + 40 * 39 / 2 + 400 * i + 400 * 399 / 2;
  EXPECT_EQ(got_a, expected);
  EXPECT_EQ(got_b, expected);
}

}  // namespace
