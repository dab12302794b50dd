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

// The scheduling point of an unlock (release or release_shared). An unlock
// usually runs in a destructor, often a noexcept one (std::lock_guard<heddle::mutex>):
// the exception that unwinds an ending iteration must not leave it, or
// std::terminate runs. So the release completes and the operation's next
// scheduling point throws again.
HEDDLE_MODEL_INLINE inline void release_point(object_id object, std::source_location loc, point_kind kind = point_kind::release) {
  try {
    if (control.running != 0) point(kind, object, loc);
  } catch (...) {
    if (!unwinding()) throw;
  }
}
HEDDLE_MODEL_INLINE inline void release_point(const resource& r, std::source_location loc, point_kind kind = point_kind::release) {
  if (control.running != 0) release_point(r.id(), loc, kind);
}

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
  // Under control only (in_control()): the callers fall back to the real
  // primitive outside. Takes the lock for the running operation. Blocks while another operation
  // holds it: forever without a deadline, until `deadline` with one. Returns
  // false on timeout, or at once when `blocking` is false and the lock is held.
  // The uncontended case is inline, so that a lock is the caller's frame plus
  // one call into the engine (each frame in between is a mispredicted return
  // after every switch); a held lock, recursion and misuse go out of line.
  HEDDLE_MODEL_INLINE bool acquire(std::string_view type, bool recursive, bool blocking,
                                   std::optional<virtual_time> deadline, std::source_location loc) {
    const object_id id = fresh_id();
    // A plain lock is a lock point, offered to the strategy only while it
    // would succeed; try_lock and a timed lock are offered always (they fail,
    // or time out).
    if (detail::control.running != 0) detail::point(point_kind::acquire, id, loc, blocking && !deadline);
    if (owner_ != 0) [[unlikely]] return contended(type, recursive, blocking, deadline, loc);
    return take(current_operation(), id);
  }
  void release(std::string_view type, std::source_location loc);
  // lock() and unlock() of the mutex classes; unlock's common case is inline too.
  HEDDLE_MODEL_INLINE void lock(std::string_view type, bool recursive, std::source_location loc) {
    acquire(type, recursive, true, std::nullopt, loc);
  }
  HEDDLE_MODEL_INLINE void unlock(std::string_view type, std::source_location loc) {
    const object_id id = fresh_id();
    if (owner_ == 0 || owner_ != current_operation() || depth_ != 1) [[unlikely]] {
      release(type, loc);
      return;
    }
    release_point(id, loc);
    depth_ = 0;
    hb_release(resource_);
    owner_ = 0;
    detail::set_owner(id, 0);
    detail::signal(id);
  }
  // For destructors: flags a lock still held (never throws).
  void check_unlocked(std::string_view type) noexcept;
  // True when the running operation holds the lock.
  bool held_by_caller() const noexcept;
  // Operations blocked waiting for it (the pthread layer's destroy check).
  std::size_t waiters() const { return waiter_count(resource_); }

 private:
  HEDDLE_MODEL_INLINE void reset_if_stale() noexcept {
    if (!resource_.stale()) return;
    owner_ = 0;
    depth_ = 0;
  }
  // The resource's id in the running iteration, the state reset first if it
  // is from an earlier one.
  HEDDLE_MODEL_INLINE object_id fresh_id() {
    reset_if_stale();
    return resource_.id();
  }
  // The lock is `me`'s; `id` is the resource's id in this iteration.
  HEDDLE_MODEL_INLINE bool take(operation_id me, object_id id) {
    owner_ = me;
    depth_ = 1;
    detail::set_owner(id, me);
    hb_acquire(resource_);
    return true;
  }
  // acquire() after its scheduling point, when the lock is held.
  bool contended(std::string_view type, bool recursive, bool blocking, std::optional<virtual_time> deadline,
                 std::source_location loc);

  resource resource_{object_kind::mutex};
  // Controlled state, reset when the resource is stale (a previous iteration
  // may have been unwound while holding the lock).
  operation_id owner_ = 0;
  std::uint32_t depth_ = 0;  // recursion depth; 0 exactly when owner_ == 0
};

// lock, try_lock and unlock of the four mutexes: the std primitive `Real`
// outside control, the shared state inside. `Name` names the class in messages.
inline constexpr char mutex_name[] = "heddle::mutex";
inline constexpr char recursive_mutex_name[] = "heddle::recursive_mutex";
inline constexpr char timed_mutex_name[] = "heddle::timed_mutex";
inline constexpr char recursive_timed_mutex_name[] = "heddle::recursive_timed_mutex";

template <class Real, bool Recursive, const char* Name>
class exclusive_mutex {
 public:
  void lock(std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.lock();
    state_.lock(Name, Recursive, loc);
  }
  bool try_lock(std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock();
    return state_.acquire(Name, Recursive, false, std::nullopt, loc);
  }
  void unlock(std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.unlock();
    state_.unlock(Name, loc);
  }
  // The timed mutexes' (those whose Real has them).
  template <class Rep, class Period>
    requires requires(Real& r, const std::chrono::duration<Rep, Period>& d) { r.try_lock_for(d); }
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d,
                    std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_for(d);
    return state_.acquire(Name, Recursive, true, chrono::deadline_after(d), loc);
  }
  template <class Clock, class Duration>
    requires requires(Real& r, const std::chrono::time_point<Clock, Duration>& t) { r.try_lock_until(t); }
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t,
                      std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_lock_until(t);
    return state_.acquire(Name, Recursive, true, chrono::deadline_at(t), loc);
  }

 protected:
  exclusive_mutex() noexcept = default;
  ~exclusive_mutex() = default;
  exclusive_state state_;
  Real real_;
};

}  // namespace detail

class mutex : public detail::exclusive_mutex<std::mutex, false, detail::mutex_name> {
 public:
  mutex() noexcept = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  ~mutex();

 private:
  friend bool detail::held_by_caller(const mutex&) noexcept;
};

class recursive_mutex : public detail::exclusive_mutex<std::recursive_mutex, true, detail::recursive_mutex_name> {
 public:
  recursive_mutex() noexcept = default;
  recursive_mutex(const recursive_mutex&) = delete;
  recursive_mutex& operator=(const recursive_mutex&) = delete;
  ~recursive_mutex();

 private:
  friend bool detail::held_by_caller(const recursive_mutex&) noexcept;
};

class timed_mutex : public detail::exclusive_mutex<std::timed_mutex, false, detail::timed_mutex_name> {
 public:
  timed_mutex() noexcept = default;
  timed_mutex(const timed_mutex&) = delete;
  timed_mutex& operator=(const timed_mutex&) = delete;
  ~timed_mutex();

 private:
  friend bool detail::held_by_caller(const timed_mutex&) noexcept;
};

class recursive_timed_mutex : public detail::exclusive_mutex<std::recursive_timed_mutex, true, detail::recursive_timed_mutex_name> {
 public:
  recursive_timed_mutex() noexcept = default;
  recursive_timed_mutex(const recursive_timed_mutex&) = delete;
  recursive_timed_mutex& operator=(const recursive_timed_mutex&) = delete;
  ~recursive_timed_mutex();

 private:
  friend bool detail::held_by_caller(const recursive_timed_mutex&) noexcept;
};

}  // namespace heddle
