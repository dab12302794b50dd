// Clocks on virtual time (DESIGN.md section 4). Under control, now() reads the
// engine's virtual clock, which starts at zero each iteration and moves only
// when a sleeping or timed-waiting operation is chosen past its deadline; a
// timed wait of one hour costs no real time. Outside control, the std clocks.
//
// Timed waits in heddle's models accept time points of these clocks, and of
// std clocks too: a std time point is converted through its distance from
// that clock's real now(), so prefer heddle::chrono clocks in tested code.
#pragma once

#include <chrono>
#include <ctime>

#include "heddle/model.hpp"

namespace heddle::chrono {

struct steady_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<steady_clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept {
    if (in_control()) return time_point(duration(heddle::now()));
    return time_point(std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch()));
  }
};

struct system_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<system_clock>;
  static constexpr bool is_steady = false;
  // Virtual wall-clock time starts at 2020-01-01T00:00:00Z in every iteration.
  static constexpr std::chrono::seconds virtual_epoch{1577836800};
  static time_point now() noexcept {
    if (in_control()) return time_point(virtual_epoch + duration(heddle::now()));
    return time_point(std::chrono::duration_cast<duration>(std::chrono::system_clock::now().time_since_epoch()));
  }
  static std::time_t to_time_t(const time_point& t) noexcept {
    return static_cast<std::time_t>(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
  }
  static time_point from_time_t(std::time_t t) noexcept {
    return time_point(std::chrono::duration_cast<duration>(std::chrono::seconds(t)));
  }
};

using high_resolution_clock = steady_clock;

// The virtual deadline of a wait `d` from now (saturating, never in the past).
template <class Rep, class Period>
virtual_time deadline_after(const std::chrono::duration<Rep, Period>& d) noexcept {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  return ns <= 0 ? heddle::now() : heddle::now() + ns;
}

// The virtual deadline of a time point of any clock.
template <class Clock, class Duration>
virtual_time deadline_at(const std::chrono::time_point<Clock, Duration>& t) noexcept {
  if constexpr (std::is_same_v<Clock, steady_clock>) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  } else if constexpr (std::is_same_v<Clock, system_clock>) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch() - system_clock::virtual_epoch).count();
  } else {
    return deadline_after(t - Clock::now());
  }
}

}  // namespace heddle::chrono
