// heddle::condition_variable and heddle::condition_variable_any (DESIGN.md
// section 8): std's condition variables under control.
//
// A condition variable is one resource. The set of waiters a notify can wake
// is the engine's waiter list of that resource: a waiter releases its lock as
// the last action before it blocks, with no scheduling point in between, so
// the unlock and the block are one step as in std, and a notify wakes exactly
// the operations that were waiting when it ran (never a later waiter: a
// notify before the wait is lost, and a lost wake-up ends as a deadlock).
// notify_one lets the strategy pick the waiter (a recorded choice). (A lock
// of a user's own type whose unlock() reaches a scheduling point after it has
// released would open a window where a notify is lost; heddle's and std's
// locks release as their last action.)
// Timed waits run on virtual time; the strategy decides whether the deadline
// passes first or a notify comes first, so both outcomes are explored. Before
// blocking, a spurious wake-up may be chosen (options::spurious_wakeups).
//
// condition_variable works with heddle::unique_lock<heddle::mutex> and with
// std::unique_lock<heddle::mutex>; condition_variable_any with any lock,
// plus the stop_token overloads. Outside an iteration both behave like
// std::condition_variable_any.
//
// Misuse is a bug: waiting without holding the lock's mutex, destroying a
// condition variable while operations wait on it.
#pragma once

#include <chrono>
#include <concepts>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>

#include "heddle/chrono.hpp"
#include "heddle/lock.hpp"
#include "heddle/model.hpp"
#include "heddle/mutex.hpp"
#include "heddle/shared_mutex.hpp"
#include "heddle/stop_token.hpp"

namespace heddle {

using std::cv_status;

namespace detail {

// The controlled part both condition variables share.
class condition_state {
 public:
  // Takes the spurious wake-up choice, if enabled.
  bool spurious_wakeup(std::source_location loc);
  // Blocks the running operation, which released its lock as its last action,
  // until a notify or `deadline`. Touches nothing of `this` once woken: a
  // notified waiter may outlive the condition variable, as std allows.
  cv_status block(std::optional<virtual_time> deadline, std::source_location loc);
  void notify_one(std::source_location loc);
  void notify_all(std::source_location loc);
  void check_no_waiters(std::string_view type) noexcept;
  // Operations blocked on it now (the pthread layer's destroy check).
  std::size_t waiters() const { return waiter_count(resource_); }
  // Reports the misuse (throws, unless an exception already propagates).
  void not_held(std::string_view type, const std::string& why, std::source_location loc);

 private:
  resource resource_{object_kind::condition_variable};
};

template <class T>
inline constexpr bool is_unique_lock = false;
template <class M>
inline constexpr bool is_unique_lock<heddle::unique_lock<M>> = true;
template <class M>
inline constexpr bool is_unique_lock<std::unique_lock<M>> = true;
template <class T>
inline constexpr bool is_shared_lock = false;
template <class M>
inline constexpr bool is_shared_lock<heddle::shared_lock<M>> = true;
template <class M>
inline constexpr bool is_shared_lock<std::shared_lock<M>> = true;

// Why the running operation visibly does not hold `lock`, or "" when it does
// (or when the lock's type cannot tell: std mutexes keep no owner).
template <class Lock>
std::string lock_problem(const Lock& lock) {
  const std::string not_caller = "the caller (operation " + std::to_string(current_operation()) + ") does not hold it";
  if constexpr (is_unique_lock<Lock> || is_shared_lock<Lock>) {
    if (!lock.owns_lock()) return "the lock does not own it";
    if constexpr (is_shared_lock<Lock> && requires { held_shared_by_caller(*lock.mutex()); }) {
      if (!held_shared_by_caller(*lock.mutex())) return not_caller;
    } else if constexpr (is_unique_lock<Lock> && requires { held_by_caller(*lock.mutex()); }) {
      if (!held_by_caller(*lock.mutex())) return not_caller;
    }
  } else if constexpr (requires { held_by_caller(lock); }) {
    if (!held_by_caller(lock)) return not_caller;
  }
  return {};
}

// A unique or shared lock waits by releasing its mutex directly (its
// owns_lock() stays true, as in std); any other lock through its own unlock.
template <class Lock>
void release_for_wait(Lock& lock, std::source_location loc) {
  if constexpr (is_unique_lock<Lock>) unlock_at(*lock.mutex(), loc);
  else if constexpr (is_shared_lock<Lock>) unlock_shared_at(*lock.mutex(), loc);
  else unlock_at(lock, loc);
}
template <class Lock>
void reacquire_after_wait(Lock& lock, std::source_location loc) {
  if constexpr (is_unique_lock<Lock>) lock_at(*lock.mutex(), loc);
  else if constexpr (is_shared_lock<Lock>) lock_shared_at(*lock.mutex(), loc);
  else lock_at(lock, loc);
}

// One controlled wait: check, release, block (unless spurious or cancelled),
// re-acquire. `cancelled` must not reach a scheduling point.
template <class Lock, class Cancelled>
cv_status controlled_wait(condition_state& state, std::string_view type, Lock& lock,
                          std::optional<virtual_time> deadline, Cancelled cancelled, std::source_location loc) {
  if (!unwinding()) {
    if (const std::string why = lock_problem(lock); !why.empty()) {
      state.not_held(type, why, loc);
      return cv_status::no_timeout;
    }
  }
  const bool spurious = state.spurious_wakeup(loc);
  release_for_wait(lock, loc);
  cv_status status = cv_status::no_timeout;
  if (!spurious && !cancelled()) status = state.block(deadline, loc);
  reacquire_after_wait(lock, loc);
  return status;
}

inline constexpr auto never = [] { return false; };

// Releases a user lock and an inner std::mutex together, so that outside
// control a stop request (which notifies under the inner mutex) cannot slip
// between a waiter's check and its block.
template <class Lock>
struct lock_pair {
  Lock& user;
  std::unique_lock<std::mutex>& inner;
  void lock() {
    user.lock();
    inner.lock();
  }
  void unlock() {
    inner.unlock();
    user.unlock();
  }
};

template <class L>
concept mutex_unique_lock =
    std::same_as<L, heddle::unique_lock<heddle::mutex>> || std::same_as<L, std::unique_lock<heddle::mutex>>;

}  // namespace detail

class condition_variable {
 public:
  condition_variable() = default;
  condition_variable(const condition_variable&) = delete;
  condition_variable& operator=(const condition_variable&) = delete;
  ~condition_variable();

  void notify_one(std::source_location loc = std::source_location::current());
  void notify_all(std::source_location loc = std::source_location::current());

  template <detail::mutex_unique_lock Lock>
  void wait(Lock& lock, std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait(lock);
    detail::controlled_wait(state_, name, lock, std::nullopt, detail::never, loc);
  }
  template <detail::mutex_unique_lock Lock, class Pred>
  void wait(Lock& lock, Pred pred, std::source_location loc = std::source_location::current()) {
    while (!pred()) wait(lock, loc);
  }
  template <detail::mutex_unique_lock Lock, class Clock, class Duration>
  cv_status wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& t,
                       std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait_until(lock, t);
    return detail::controlled_wait(state_, name, lock, chrono::deadline_at(t), detail::never, loc);
  }
  template <detail::mutex_unique_lock Lock, class Clock, class Duration, class Pred>
  bool wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& t, Pred pred,
                  std::source_location loc = std::source_location::current()) {
    while (!pred())
      if (wait_until(lock, t, loc) == cv_status::timeout) return pred();
    return true;
  }
  template <detail::mutex_unique_lock Lock, class Rep, class Period>
  cv_status wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& d,
                     std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait_for(lock, d);
    return detail::controlled_wait(state_, name, lock, chrono::deadline_after(d), detail::never, loc);
  }
  template <detail::mutex_unique_lock Lock, class Rep, class Period, class Pred>
  bool wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& d, Pred pred,
                std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait_for(lock, d, std::move(pred));
    const virtual_time deadline = chrono::deadline_after(d);
    while (!pred())
      if (detail::controlled_wait(state_, name, lock, deadline, detail::never, loc) == cv_status::timeout)
        return pred();
    return true;
  }

 private:
  static constexpr std::string_view name = "heddle::condition_variable";
  detail::condition_state state_;
  std::condition_variable_any real_;  // heddle::mutex is not std::mutex: the _any variant waits on it
};

class condition_variable_any {
 public:
  condition_variable_any() = default;
  condition_variable_any(const condition_variable_any&) = delete;
  condition_variable_any& operator=(const condition_variable_any&) = delete;
  ~condition_variable_any();

  void notify_one(std::source_location loc = std::source_location::current());
  void notify_all(std::source_location loc = std::source_location::current());

  template <class Lock>
  void wait(Lock& lock, std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait(lock);
    detail::controlled_wait(state_, name, lock, std::nullopt, detail::never, loc);
  }
  template <class Lock, class Pred>
    requires std::predicate<Pred&>
  void wait(Lock& lock, Pred pred, std::source_location loc = std::source_location::current()) {
    while (!pred()) wait(lock, loc);
  }
  template <class Lock, class Clock, class Duration>
  cv_status wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& t,
                       std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait_until(lock, t);
    return detail::controlled_wait(state_, name, lock, chrono::deadline_at(t), detail::never, loc);
  }
  template <class Lock, class Clock, class Duration, class Pred>
  bool wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& t, Pred pred,
                  std::source_location loc = std::source_location::current()) {
    while (!pred())
      if (wait_until(lock, t, loc) == cv_status::timeout) return pred();
    return true;
  }
  template <class Lock, class Rep, class Period>
  cv_status wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& d,
                     std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait_for(lock, d);
    return detail::controlled_wait(state_, name, lock, chrono::deadline_after(d), detail::never, loc);
  }
  template <class Lock, class Rep, class Period, class Pred>
  bool wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& d, Pred pred,
                std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.wait_for(lock, d, std::move(pred));
    const virtual_time deadline = chrono::deadline_after(d);
    while (!pred())
      if (detail::controlled_wait(state_, name, lock, deadline, detail::never, loc) == cv_status::timeout)
        return pred();
    return true;
  }

  // Interruptible waits (C++20): return when `pred` holds or a stop is
  // requested, then the value of pred().
  template <class Lock, class Pred>
  bool wait(Lock& lock, stop_token stoken, Pred pred, std::source_location loc = std::source_location::current()) {
    return stoppable_wait<std::chrono::steady_clock::time_point>(lock, stoken, std::nullopt, nullptr, pred, loc);
  }
  template <class Lock, class Clock, class Duration, class Pred>
  bool wait_until(Lock& lock, stop_token stoken, const std::chrono::time_point<Clock, Duration>& t, Pred pred,
                  std::source_location loc = std::source_location::current()) {
    return stoppable_wait(lock, stoken, chrono::deadline_at(t), &t, pred, loc);
  }
  template <class Lock, class Rep, class Period, class Pred>
  bool wait_for(Lock& lock, stop_token stoken, const std::chrono::duration<Rep, Period>& d, Pred pred,
                std::source_location loc = std::source_location::current()) {
    const auto t = std::chrono::steady_clock::now() + d;
    return stoppable_wait(lock, stoken, chrono::deadline_after(d), &t, pred, loc);
  }

 private:
  // std's definition: while (!stop_requested()) { if (pred()) return true;
  // wait...; } return pred(). Under control the deadline is `virtual_deadline`,
  // outside `*real_deadline` (none when null).
  template <class TimePoint, class Lock, class Pred>
  bool stoppable_wait(Lock& lock, const stop_token& stoken, std::optional<virtual_time> virtual_deadline,
                      const TimePoint* real_deadline, Pred& pred, std::source_location loc) {
    if (in_control()) {
      // The stop callback records the request in a flag the waiter reads
      // without a scheduling point, then notifies: a request cannot slip
      // between the check and the block.
      bool stopped = false;
      auto on_request = [&] {
        stopped = true;
        notify_all(loc);
      };
      stop_callback<decltype(on_request)> on_stop(stoken, on_request, loc);
      while (!stopped) {
        if (pred()) return true;
        const auto status =
            detail::controlled_wait(state_, name, lock, virtual_deadline, [&] { return stopped; }, loc);
        if (status == cv_status::timeout) return pred();
      }
      return pred();
    }
    bool stopped = false;  // guarded by stop_mutex_
    auto on_request = [&] {
      std::lock_guard<std::mutex> guard(stop_mutex_);
      stopped = true;
      real_.notify_all();
    };
    stop_callback<decltype(on_request)> on_stop(stoken, on_request, loc);
    for (;;) {
      if (pred()) return true;
      std::unique_lock<std::mutex> inner(stop_mutex_);
      if (stopped) break;
      detail::lock_pair<Lock> both{lock, inner};
      if (real_deadline == nullptr) {
        real_.wait(both);
      } else if (real_.wait_until(both, *real_deadline) == cv_status::timeout) {
        inner.unlock();
        return pred();
      }
    }
    return pred();
  }

  static constexpr std::string_view name = "heddle::condition_variable_any";
  detail::condition_state state_;
  std::condition_variable_any real_;
  std::mutex stop_mutex_;  // outside control: orders stop requests against waits
};

}  // namespace heddle
