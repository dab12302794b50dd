// heddle::mutex and its family (DESIGN.md section 8): std::mutex,
// std::timed_mutex, std::recursive_mutex, std::recursive_timed_mutex under
// control. lock, try_lock and unlock are scheduling points (acquire, release);
// timed locks wait on virtual time, so both "acquired" and "timed out" are
// explored. Outside an iteration each forwards to its std counterpart.
//
// Misuse is a bug: unlocking a mutex one does not own, re-locking a
// non-recursive mutex (a self-deadlock in std), destroying a locked mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <source_location>
#include <string_view>

#include "heddle/chrono.hpp"
#include "heddle/model.hpp"

namespace heddle {

class mutex;
class recursive_mutex;
class timed_mutex;
class recursive_timed_mutex;

namespace detail {

// The scheduling point of an unlock (release or release_shared); see mutex.cpp.
void release_point(const resource& r, std::source_location loc, point_kind kind = point_kind::release);

// True when the running operation holds the mutex; the condition variables
// use these to check that a waiter holds its mutex.
bool held_by_caller(const mutex& m) noexcept;
bool held_by_caller(const recursive_mutex& m) noexcept;
bool held_by_caller(const timed_mutex& m) noexcept;
bool held_by_caller(const recursive_timed_mutex& m) noexcept;

// The controlled state of one exclusive lock, shared by the four mutexes.
// `type` names the public class in messages ("heddle::timed_mutex").
class exclusive_state {
 public:
  // Takes the lock for the running operation. Blocks while another operation
  // holds it: forever without a deadline, until `deadline` with one. Returns
  // false on timeout, or at once when `blocking` is false and the lock is held.
  bool acquire(std::string_view type, bool recursive, bool blocking, std::optional<virtual_time> deadline,
               std::source_location loc);
  void release(std::string_view type, std::source_location loc);
  // For destructors: flags a lock still held (never throws).
  void check_unlocked(std::string_view type) noexcept;
  // True when the running operation holds the lock.
  bool held_by_caller() const noexcept;
  // Operations blocked waiting for it (the pthread layer's destroy check).
  std::size_t waiters() const { return waiter_count(resource_); }

 private:
  void reset_if_stale() noexcept;

  resource resource_{object_kind::mutex};
  // Controlled state, reset when the resource is stale (a previous iteration
  // may have been unwound while holding the lock).
  operation_id owner_ = 0;
  std::uint32_t depth_ = 0;  // recursion depth; 0 exactly when owner_ == 0
};

}  // namespace detail

class mutex {
 public:
  mutex() noexcept = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  ~mutex();

  void lock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());

 private:
  friend bool detail::held_by_caller(const mutex&) noexcept;
  detail::exclusive_state state_;
  std::mutex real_;
};

class recursive_mutex {
 public:
  recursive_mutex() noexcept = default;
  recursive_mutex(const recursive_mutex&) = delete;
  recursive_mutex& operator=(const recursive_mutex&) = delete;
  ~recursive_mutex();

  void lock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());

 private:
  friend bool detail::held_by_caller(const recursive_mutex&) noexcept;
  detail::exclusive_state state_;
  std::recursive_mutex real_;
};

class timed_mutex {
 public:
  timed_mutex() noexcept = default;
  timed_mutex(const timed_mutex&) = delete;
  timed_mutex& operator=(const timed_mutex&) = delete;
  ~timed_mutex();

  void lock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());

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

 private:
  static constexpr std::string_view name = "heddle::timed_mutex";
  friend bool detail::held_by_caller(const timed_mutex&) noexcept;
  detail::exclusive_state state_;
  std::timed_mutex real_;
};

class recursive_timed_mutex {
 public:
  recursive_timed_mutex() noexcept = default;
  recursive_timed_mutex(const recursive_timed_mutex&) = delete;
  recursive_timed_mutex& operator=(const recursive_timed_mutex&) = delete;
  ~recursive_timed_mutex();

  void lock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());

  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d,
                    std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_for(d);
    return state_.acquire(name, true, true, chrono::deadline_after(d), loc);
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t,
                      std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_until(t);
    return state_.acquire(name, true, true, chrono::deadline_at(t), loc);
  }

 private:
  static constexpr std::string_view name = "heddle::recursive_timed_mutex";
  friend bool detail::held_by_caller(const recursive_timed_mutex&) noexcept;
  detail::exclusive_state state_;
  std::recursive_timed_mutex real_;
};

}  // namespace heddle
