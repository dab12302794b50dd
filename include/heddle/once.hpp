// heddle::once_flag and heddle::call_once: std::call_once under control.
//
// Under control, call_once is a scheduling point (acquire) on the flag's
// resource. The first caller runs the callable while later callers wait on the
// resource; when the callable returns the flag is done and waiters return;
// when it throws, the flag stays unset, one waiter is let through to try, and
// the exception propagates to the caller, as in std. Calling call_once on the
// same flag from inside its own callable is misuse (a deadlock in std).
//
// A once_flag that outlives an iteration (a global) starts each iteration
// unset, so every iteration explores the first call. Outside an iteration,
// call_once is std::call_once on a real std::once_flag.
#pragma once

#include <functional>
#include <mutex>
#include <source_location>
#include <tuple>
#include <utility>

#include "heddle/model.hpp"

namespace heddle {

class once_flag;

namespace detail {
// Under control: the running operation owns the flag and must run the
// callable (true), or the flag is already done (false).
bool once_begin(once_flag& flag, std::source_location loc);
void once_end(once_flag& flag, bool succeeded);
}  // namespace detail

class once_flag {
 public:
  constexpr once_flag() noexcept = default;
  once_flag(const once_flag&) = delete;
  once_flag& operator=(const once_flag&) = delete;

 private:
  friend bool detail::once_begin(once_flag&, std::source_location);
  friend void detail::once_end(once_flag&, bool);
  template <class Callable, class... Args>
  friend void call_once(once_flag& flag, Callable&& f, Args&&... args);

  enum class state : unsigned char { unset, running, done };
  // Controlled state, reset when the resource is stale.
  state state_ = state::unset;
  operation_id runner_ = 0;
  resource resource_{object_kind::once_flag};
  std::once_flag real_;
};

// std::call_once has no place for a trailing source_location after the
// argument pack: reports name this header's line. Use the callable's own
// scheduling points to locate a problem.
template <class Callable, class... Args>
void call_once(once_flag& flag, Callable&& f, Args&&... args) {
  if (!in_control()) {
    std::call_once(flag.real_, std::forward<Callable>(f), std::forward<Args>(args)...);
    return;
  }
  if (!detail::once_begin(flag, std::source_location::current())) return;
  try {
    std::invoke(std::forward<Callable>(f), std::forward<Args>(args)...);
  } catch (...) {
    detail::once_end(flag, false);
    throw;
  }
  detail::once_end(flag, true);
}

}  // namespace heddle
