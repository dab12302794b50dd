// heddle::shared_mutex and heddle::shared_timed_mutex (DESIGN.md section 8):
// std's reader-writer locks under control. lock/try_lock/unlock are
// scheduling points acquire/release, the *_shared functions acquire_shared/
// release_shared; timed variants wait on virtual time, so both outcomes are
// explored. Readers may enter while a writer waits (std leaves the policy
// open; this is the more permissive choice, so it hides no interleaving).
// Outside an iteration each forwards to its std counterpart.
//
// Misuse is a bug: unlock or unlock_shared of a lock the caller does not hold,
// locking again a lock the caller already holds in either mode (std has no
// upgrade and no recursion), destroying a locked mutex.
#pragma once

#include <chrono>
#include <optional>
#include <shared_mutex>
#include <source_location>
#include <string_view>
#include <vector>

#include "heddle/chrono.hpp"
#include "heddle/model.hpp"

namespace heddle {

class shared_mutex;
class shared_timed_mutex;

namespace detail {

// The controlled state of one reader-writer lock.
class shared_state {
 public:
  // Takes the lock exclusively (shared == false) or shared. Blocks while it
  // conflicts: forever without a deadline, until `deadline` with one. Returns
  // false on timeout, or at once when `blocking` is false and it conflicts.
  bool acquire(std::string_view type, bool shared, bool blocking, std::optional<virtual_time> deadline,
               std::source_location loc);
  void release(std::string_view type, bool shared, std::source_location loc);
  void check_unlocked(std::string_view type) noexcept;
  bool held_by_caller() const noexcept;         // exclusively
  bool held_shared_by_caller() const noexcept;  // shared

 private:
  void reset_if_stale() noexcept;
  bool holds_shared(operation_id op) const noexcept;

  resource resource_{object_kind::shared_mutex};
  // Controlled state, reset when the resource is stale. Invariant: writer_ == 0
  // or readers_ is empty; readers_ holds each reader once.
  operation_id writer_ = 0;
  std::vector<operation_id> readers_;
};

bool held_by_caller(const shared_mutex& m) noexcept;
bool held_by_caller(const shared_timed_mutex& m) noexcept;
bool held_shared_by_caller(const shared_mutex& m) noexcept;
bool held_shared_by_caller(const shared_timed_mutex& m) noexcept;

}  // namespace detail

class shared_mutex {
 public:
  shared_mutex() = default;
  shared_mutex(const shared_mutex&) = delete;
  shared_mutex& operator=(const shared_mutex&) = delete;
  ~shared_mutex();

  void lock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());
  void lock_shared(std::source_location loc = std::source_location::current());
  bool try_lock_shared(std::source_location loc = std::source_location::current());
  void unlock_shared(std::source_location loc = std::source_location::current());

 private:
  friend bool detail::held_by_caller(const shared_mutex&) noexcept;
  friend bool detail::held_shared_by_caller(const shared_mutex&) noexcept;
  detail::shared_state state_;
  std::shared_mutex real_;
};

class shared_timed_mutex {
 public:
  shared_timed_mutex() = default;
  shared_timed_mutex(const shared_timed_mutex&) = delete;
  shared_timed_mutex& operator=(const shared_timed_mutex&) = delete;
  ~shared_timed_mutex();

  void lock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());
  void lock_shared(std::source_location loc = std::source_location::current());
  bool try_lock_shared(std::source_location loc = std::source_location::current());
  void unlock_shared(std::source_location loc = std::source_location::current());

  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d,
                    std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_for(d);
    return state_.acquire(name, false, true, chrono::deadline_after(d), loc);
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t,
                      std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_until(t);
    return state_.acquire(name, false, true, chrono::deadline_at(t), loc);
  }
  template <class Rep, class Period>
  bool try_lock_shared_for(const std::chrono::duration<Rep, Period>& d,
                           std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_shared_for(d);
    return state_.acquire(name, true, true, chrono::deadline_after(d), loc);
  }
  template <class Clock, class Duration>
  bool try_lock_shared_until(const std::chrono::time_point<Clock, Duration>& t,
                             std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_shared_until(t);
    return state_.acquire(name, true, true, chrono::deadline_at(t), loc);
  }

 private:
  static constexpr std::string_view name = "heddle::shared_timed_mutex";
  friend bool detail::held_by_caller(const shared_timed_mutex&) noexcept;
  friend bool detail::held_shared_by_caller(const shared_timed_mutex&) noexcept;
  detail::shared_state state_;
  std::shared_timed_mutex real_;
};

}  // namespace heddle
