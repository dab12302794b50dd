// The task programs of task_programs.hpp: each a bug of coroutine code that
// C# and C++ users meet, with its fixed twin.
#include "task_programs.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "heddle/async.hpp"
#include "heddle/checked.hpp"
#include "heddle/stop_token.hpp"
#include "heddle/task.hpp"

namespace heddle_tasks {

namespace {

using heddle::task;

// --- a lost update across co_await ---------------------------------------------
// Each task reads the counter, awaits, and writes back what it read plus one.
task<void> increment_across_await(int& counter) {
  const int seen = counter;
  co_await heddle::yield();
  counter = seen + 1;
}
task<void> increment_after_await(int& counter) {
  co_await heddle::yield();
  counter = counter + 1;  // read and write in one step: nothing interleaves
}
void lost_update_buggy() {
  int counter = 0;
  auto a = heddle::run(increment_across_await(counter), "a");
  auto b = heddle::run(increment_across_await(counter), "b");
  heddle::wait_all(a, b);
  HEDDLE_ASSERT(counter == 2);
}
void lost_update_fixed() {
  int counter = 0;
  auto a = heddle::run(increment_after_await(counter), "a");
  auto b = heddle::run(increment_after_await(counter), "b");
  heddle::wait_all(a, b);
  HEDDLE_ASSERT(counter == 2);
}

// --- a forgotten co_await ---------------------------------------------------------
// The saved value is shared: the forgotten task may outlive its caller.
task<void> save(std::shared_ptr<int> stored) {
  co_await heddle::yield();
  *stored = 1;
}
task<void> save_then_check_forgotten(std::shared_ptr<int> stored) {
  auto pending = heddle::run(save(stored), "save");  // fire and forget: nobody awaits it
  co_await heddle::yield();
  HEDDLE_ASSERT(*stored == 1);
}
task<void> save_then_check(std::shared_ptr<int> stored) {
  co_await save(stored);
  co_await heddle::yield();
  HEDDLE_ASSERT(*stored == 1);
}
void forgotten_await_buggy() {
  heddle::run(save_then_check_forgotten(std::make_shared<int>(0)), "caller").get();
}
void forgotten_await_fixed() {
  heddle::run(save_then_check(std::make_shared<int>(0)), "caller").get();
}

// --- sync over async on a one-worker pool ---------------------------------------------
task<int> lookup() {
  co_await heddle::yield();
  co_return 7;
}
task<int> handle_blocking(heddle::thread_pool& pool) {
  // Blocks this pool's only worker until lookup() completes, which needs a worker.
  co_return pool.run(lookup(), "lookup").get() + 1;
}
task<int> handle_awaiting(heddle::thread_pool& pool) {
  co_return co_await pool.run(lookup(), "lookup") + 1;
}
void sync_over_async_buggy() {
  heddle::thread_pool pool(1);
  HEDDLE_ASSERT(pool.run(handle_blocking(pool), "handler").get() == 8);
}
void sync_over_async_fixed() {
  heddle::thread_pool pool(1);
  HEDDLE_ASSERT(pool.run(handle_awaiting(pool), "handler").get() == 8);
}

// --- when_any whose loser still writes -------------------------------------------------
task<void> write_answer(int& answer, int value) {
  co_await heddle::yield();
  answer = value;
}
task<void> write_answer_once(int& answer, bool& claimed, int value) {
  co_await heddle::yield();
  if (claimed) co_return;  // the race is lost: leave the answer alone
  claimed = true;
  answer = value;
}
task<void> first_answer(int& answer, bool fixed) {
  bool claimed = false;
  auto a = heddle::run(fixed ? write_answer_once(answer, claimed, 1) : write_answer(answer, 1), "a");
  auto b = heddle::run(fixed ? write_answer_once(answer, claimed, 2) : write_answer(answer, 2), "b");
  const std::size_t winner = co_await heddle::when_any(a, b);
  co_await heddle::yield();
  HEDDLE_ASSERT(answer == (winner == 0 ? 1 : 2));
  co_await heddle::when_all(a, b);  // `claimed` lives in this frame
}
void when_any_loser_buggy() {
  int answer = 0;
  heddle::run(first_answer(answer, false), "caller").get();
}
void when_any_loser_fixed() {
  int answer = 0;
  heddle::run(first_answer(answer, true), "caller").get();
}

// --- a double set_value on a task_completion_source ---------------------------------
// The backup replies when the primary has not replied after a timeout; it
// checks before the timeout and trusts the check after it.
task<void> primary_reply(heddle::task_completion_source<int>& source, bool& replied, bool fixed) {
  co_await heddle::yield();
  if (fixed) source.try_set_value(1);  // whichever reply comes first wins
  else source.set_value(1);
  replied = true;
}
task<void> backup_reply(heddle::task_completion_source<int>& source, const bool& replied, bool fixed) {
  co_await heddle::yield();
  if (replied) co_return;
  co_await heddle::delay(std::chrono::milliseconds(5));  // the primary's deadline
  if (fixed) source.try_set_value(2);
  else source.set_value(2);
}
void double_set_value(bool fixed) {
  heddle::task_completion_source<int> source;
  bool replied = false;
  auto a = heddle::run(primary_reply(source, replied, fixed), "primary");
  auto b = heddle::run(backup_reply(source, replied, fixed), "backup");
  const int got = source.get_task().get();
  HEDDLE_ASSERT(got == 1 || got == 2);
  heddle::wait_all(a, b);
}
void double_set_value_buggy() { double_set_value(false); }
void double_set_value_fixed() { double_set_value(true); }

// --- an async_mutex held across a throwing co_await ------------------------------------
// fetch() fails once the outage task has taken the service down. The buggy
// update locks by hand, so the exception skips the unlock and the other
// update waits for the lock forever.
task<int> fetch(const bool& service_up) {
  co_await heddle::yield();
  if (!service_up) throw std::runtime_error("service down");
  co_return 1;
}
task<void> update_by_hand(heddle::async_mutex& m, int& total, const bool& up) {
  try {
    co_await m.lock();
    total += co_await fetch(up);
    m.unlock();
  } catch (const std::runtime_error&) {
  }
}
task<void> update_scoped(heddle::async_mutex& m, int& total, const bool& up) {
  try {
    auto guard = co_await m.scoped_lock();
    total += co_await fetch(up);
  } catch (const std::runtime_error&) {
  }
}
task<void> outage(bool& up) {
  co_await heddle::yield();
  up = false;
}
void mutex_across_throw(bool fixed) {
  heddle::async_mutex m;
  int total = 0;
  bool up = true;
  auto a = heddle::run(fixed ? update_scoped(m, total, up) : update_by_hand(m, total, up), "a");
  auto b = heddle::run(fixed ? update_scoped(m, total, up) : update_by_hand(m, total, up), "b");
  auto c = heddle::run(outage(up), "outage");
  heddle::wait_all(a, b, c);
  HEDDLE_ASSERT(total <= 2);
}
void mutex_across_throw_buggy() { mutex_across_throw(false); }
void mutex_across_throw_fixed() { mutex_across_throw(true); }

// --- a cancellation race ------------------------------------------------------------------
// A transfer checks its token, then takes a while to commit. The canceller
// requests a stop and expects nothing to commit after that. The buggy
// transfer trusts its check across the await; the fixed one waits with the
// token, so a stop during the wait cancels it.
struct account {
  bool committed = false;
};
task<void> transfer_checked_once(heddle::stop_token token, account& acc) {
  if (token.stop_requested()) co_return;
  co_await heddle::delay(std::chrono::milliseconds(1));
  acc.committed = true;
}
task<void> transfer_cancellable(heddle::stop_token token, account& acc) {
  try {
    co_await heddle::delay(std::chrono::milliseconds(1), token);
    acc.committed = true;
  } catch (const heddle::operation_canceled&) {
  }
}
task<void> cancel(heddle::stop_source& source, const account& acc) {
  co_await heddle::yield();
  source.request_stop();
  const bool committed_before = acc.committed;
  co_await heddle::yield();
  co_await heddle::yield();
  HEDDLE_ASSERT_MSG(acc.committed == committed_before, "the transfer committed after it was cancelled");
}
void cancellation_race(bool fixed) {
  heddle::stop_source source;
  account acc;
  auto t = heddle::run(fixed ? transfer_cancellable(source.get_token(), acc) : transfer_checked_once(source.get_token(), acc),
                       "transfer");
  auto c = heddle::run(cancel(source, acc), "canceller");
  heddle::wait_all(t, c);
}
void cancellation_race_buggy() { cancellation_race(false); }
void cancellation_race_fixed() { cancellation_race(true); }

// --- a channel close race -------------------------------------------------------------
// Two producers share a channel; the buggy one closes it when its own items
// are sent, while the other may still be sending (send on a closed channel
// throws). The fixed program closes after both producers are done.
task<void> produce(heddle::channel<int>& ch, int first, bool close_after) {
  for (int i = first; i < first + 2; ++i) co_await ch.send(i);
  if (close_after) ch.close();
}
task<int> consume(heddle::channel<int>& ch) {
  int sum = 0;
  while (auto v = co_await ch.receive()) sum += *v;
  co_return sum;
}
task<void> produce_both_then_close(heddle::channel<int>& ch) {
  auto p = heddle::run(produce(ch, 0, false), "producer 1");
  auto q = heddle::run(produce(ch, 10, false), "producer 2");
  co_await heddle::when_all(p, q);
  ch.close();
}
void channel_close_race_buggy() {
  heddle::channel<int> ch(1);
  auto p = heddle::run(produce(ch, 0, true), "producer 1");
  auto q = heddle::run(produce(ch, 10, false), "producer 2");
  auto c = heddle::run(consume(ch), "consumer");
  heddle::wait_all(p, q);
  HEDDLE_ASSERT(c.get() == 0 + 1 + 10 + 11);
}
void channel_close_race_fixed() {
  heddle::channel<int> ch(1);
  auto p = heddle::run(produce_both_then_close(ch), "producers");
  auto c = heddle::run(consume(ch), "consumer");
  p.get();
  HEDDLE_ASSERT(c.get() == 0 + 1 + 10 + 11);
}

// --- A thread-safety violation on a checked vector from two tasks ---------------
// Two tasks append to one log; each append is a write of the vector, and the
// scheduling points at a checked call's entry and exit let a strategy make the
// two calls overlap. The twin serialises the appends with an async_mutex.
task<void> append_twice(heddle::checked<std::vector<int>>& log, int first) {
  for (int i = 0; i < 2; ++i) {
    co_await heddle::yield();
    log.push_back(first + i);
  }
}
task<void> append_twice_locked(heddle::checked<std::vector<int>>& log, heddle::async_mutex& m, int first) {
  for (int i = 0; i < 2; ++i) {
    co_await heddle::yield();
    auto lock = co_await m.scoped_lock();
    log.push_back(first + i);
  }
}
void checked_vector_buggy() {
  heddle::checked<std::vector<int>> log;
  auto a = heddle::run(append_twice(log, 0), "a");
  auto b = heddle::run(append_twice(log, 10), "b");
  heddle::wait_all(a, b);
  HEDDLE_ASSERT(log.size() == 4);
}
void checked_vector_fixed() {
  heddle::checked<std::vector<int>> log;
  heddle::async_mutex m;
  auto a = heddle::run(append_twice_locked(log, m, 0), "a");
  auto b = heddle::run(append_twice_locked(log, m, 10), "b");
  heddle::wait_all(a, b);
  HEDDLE_ASSERT(log.size() == 4);
}

}  // namespace

// --- Coyote's running example ------------------------------------------------------
namespace {
task<void> send_messages(std::vector<std::string>& log, std::string tag) {
  for (int i = 0; i < 50; ++i) {
    co_await heddle::yield();
    log.push_back(tag + std::to_string(i));
  }
}
std::size_t index_of(const std::vector<std::string>& log, std::string_view entry) {
  return static_cast<std::size_t>(std::find(log.begin(), log.end(), entry) - log.begin());
}
}  // namespace

void running_example() {
  std::vector<std::string> log;
  auto a = heddle::run(send_messages(log, "a"), "a");
  auto b = heddle::run(send_messages(log, "b"), "b");
  heddle::wait_all(a, b);
  // The bug Coyote's example hides: all of a's messages before b's first.
  HEDDLE_ASSERT_MSG(!(index_of(log, "a49") < index_of(log, "b0")), "every message of a came before b's first");
}

const std::vector<program>& all_programs() {
  using heddle::bug_kind;
  static const std::vector<program> table = {
      {"lost_update_across_await", "two tasks read a counter, await, and write back what they read plus one",
       lost_update_buggy, lost_update_fixed, bug_kind::assertion, "assertion failed: counter == 2"},
      {"forgotten_await", "a task started and never awaited completes after the caller's check",
       forgotten_await_buggy, forgotten_await_fixed, bug_kind::assertion, "assertion failed: *stored == 1"},
      {"sync_over_async_one_worker",
       "a task on a one-worker pool blocks on get() of a task that needs the same worker",
       sync_over_async_buggy, sync_over_async_fixed, bug_kind::deadlock, "waits for semaphore"},
      {"when_any_loser_writes", "the task that lost when_any still writes the answer after the winner",
       when_any_loser_buggy, when_any_loser_fixed, bug_kind::assertion,
       "assertion failed: answer == (winner == 0 ? 1 : 2)"},
      {"double_set_value", "two replies both complete one task_completion_source", double_set_value_buggy,
       double_set_value_fixed, bug_kind::api_misuse,
       "task_completion_source::set_value called on a source that is already completed"},
      {"async_mutex_across_throwing_await",
       "an exception thrown by an awaited fetch skips the unlock of a hand-locked async_mutex",
       mutex_across_throw_buggy, mutex_across_throw_fixed, bug_kind::deadlock, "waits for mutex"},
      {"cancellation_race", "a transfer checks its stop token, awaits, and commits after the cancellation",
       cancellation_race_buggy, cancellation_race_fixed, bug_kind::assertion,
       "the transfer committed after it was cancelled"},
      {"channel_close_race", "one of two producers closes the shared channel while the other still sends",
       channel_close_race_buggy, channel_close_race_fixed, bug_kind::uncaught_exception,
       "send on a closed channel"},
      {"checked_vector_from_two_tasks", "two tasks append to one checked vector without a lock",
       checked_vector_buggy, checked_vector_fixed, bug_kind::thread_safety_violation,
       "push_back (write) on checked vector"},
  };
  return table;
}

heddle::options quiet(std::uint64_t iterations, std::string_view strategy) {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = std::string(strategy);
  o.print_report = false;
  o.out.clear();
  return o;
}

}  // namespace heddle_tasks
