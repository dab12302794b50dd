// heddle::counting_semaphore and heddle::binary_semaphore (DESIGN.md section
// 8): std's semaphores under control. acquire/try_acquire are scheduling
// points (acquire), release is one (signal); a timed acquire waits on virtual
// time, so both "acquired" and "timed out" are explored. Outside an iteration
// each forwards to its std counterpart.
//
// Misuse is a bug: release(n) with n < 0 or past max() (std's precondition).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <semaphore>
#include <source_location>

#include "heddle/chrono.hpp"
#include "heddle/model.hpp"

namespace heddle {

namespace detail {

// The controlled state of one semaphore.
class semaphore_state {
 public:
  constexpr semaphore_state(std::ptrdiff_t initial, std::ptrdiff_t max) noexcept : initial_(initial), max_(max), count_(initial) {}
  // Takes one unit; blocks while there is none (forever, or until `deadline`);
  // false on timeout, or at once when `blocking` is false and the count is 0.
  bool acquire(bool blocking, std::optional<virtual_time> deadline, std::source_location loc);
  void release(std::ptrdiff_t n, std::source_location loc);
  // The current count (sem_getvalue).
  std::ptrdiff_t value() noexcept {
    reset_if_stale();
    return count_;
  }

 private:
  void reset_if_stale() noexcept;

  resource resource_{object_kind::semaphore};
  std::ptrdiff_t initial_;
  std::ptrdiff_t max_;
  std::ptrdiff_t count_;  // controlled state; back to initial_ when the resource is stale
};

}  // namespace detail

template <std::ptrdiff_t LeastMaxValue = PTRDIFF_MAX>
class counting_semaphore {
  static_assert(LeastMaxValue >= 0);

 public:
  static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }

  constexpr explicit counting_semaphore(std::ptrdiff_t desired) : state_(desired, max()), real_(desired) {}
  counting_semaphore(const counting_semaphore&) = delete;
  counting_semaphore& operator=(const counting_semaphore&) = delete;

  void release(std::ptrdiff_t update = 1, std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.release(update);
    state_.release(update, loc);
  }
  void acquire(std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.acquire();
    state_.acquire(true, std::nullopt, loc);
  }
  bool try_acquire(std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_acquire();
    return state_.acquire(false, std::nullopt, loc);
  }
  template <class Rep, class Period>
  bool try_acquire_for(const std::chrono::duration<Rep, Period>& d,
                       std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_acquire_for(d);
    return state_.acquire(true, chrono::deadline_after(d), loc);
  }
  template <class Clock, class Duration>
  bool try_acquire_until(const std::chrono::time_point<Clock, Duration>& t,
                         std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.try_acquire_until(t);
    return state_.acquire(true, chrono::deadline_at(t), loc);
  }

 private:
  detail::semaphore_state state_;
  std::counting_semaphore<LeastMaxValue> real_;
};

using binary_semaphore = counting_semaphore<1>;

}  // namespace heddle
