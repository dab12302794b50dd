// What the engine's translation units share privately: the switch between
// operations, which the hot path (engine.cpp) and the unwinding of an
// iteration (unwinding.cpp) both inline, and the rule of which points may
// throw the unwind exception. Not for models or the runner: they see engine.hpp.
#pragma once

#include "backends/fiber_backend.hpp"
#include "engine/engine.hpp"

namespace heddle::detail {

// Points that destructors reach (an unlock in a lock guard's destructor, a
// notify or a semaphore release in a scope guard's): resuming an operation
// there must not throw the unwind exception, which would hit a noexcept
// frame. The operation runs on to its next point and unwinds from there.
constexpr bool may_throw_at(point_kind kind) noexcept {
  return kind != point_kind::release && kind != point_kind::release_shared && kind != point_kind::signal;
}

// Installs, once per process, the terminate handler that abandons an operation
// whose unwind exception reached a noexcept frame (unwinding.cpp).
void install_unwind_safety_net();

inline void engine::switch_to(operation_id from, operation_id to) {
  if (fibers_ != nullptr) [[likely]] fibers_->switch_now(from, to);
  else backend_.switch_to(from, to);
}

}  // namespace heddle::detail
