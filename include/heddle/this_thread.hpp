// heddle::this_thread: yield, sleep on virtual time, identity and naming.
#pragma once

#include <chrono>
#include <source_location>
#include <thread>

#include "heddle/chrono.hpp"
#include "heddle/model.hpp"
#include "heddle/thread.hpp"

namespace heddle::this_thread {

// A scheduling point: another operation may run (std::this_thread::yield outside).
inline void yield(std::source_location loc = std::source_location::current()) {
  if (in_control()) scheduling_point(point_kind::yield, loc);
  else std::this_thread::yield();
}

template <class Rep, class Period>
void sleep_for(const std::chrono::duration<Rep, Period>& d,
               std::source_location loc = std::source_location::current()) {
  if (!in_control()) {
    std::this_thread::sleep_for(d);
    return;
  }
  sleep_until(chrono::deadline_after(d), loc);
}

template <class Clock, class Duration>
void sleep_until(const std::chrono::time_point<Clock, Duration>& t,
                 std::source_location loc = std::source_location::current()) {
  if (!in_control()) {
    if constexpr (std::chrono::is_clock_v<Clock> && !std::is_same_v<Clock, chrono::steady_clock> &&
                  !std::is_same_v<Clock, chrono::system_clock>) {
      std::this_thread::sleep_until(t);
    } else {
      std::this_thread::sleep_for(t - Clock::now());
    }
    return;
  }
  heddle::sleep_until(chrono::deadline_at(t), loc);
}

}  // namespace heddle::this_thread
