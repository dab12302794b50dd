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

template <bool running>
inline operation_id engine::continue_as(operation_id old, std::uint32_t chain) {
  const operation_id id = op_count_++;
  if (id >= ops_.size()) [[unlikely]] grow_operations();
  operation& from = ops_[old];
  operation& to = ops_[id];
  to.id = id;
  to.parent = old;
  to.chain = chain != 0 ? chain : from.chain;
  to.self = from.self;
  to.follower = from.follower;
  to.start = from.start;
  to.woken_by = from.woken_by;
  to.reason = from.reason;
  to.started = true;
  to.unwind_requested = false;
  to.abandoned = false;
  to.abort_in_flight = false;
  to.lock = from.lock;
  objects_[to.self].owner = id;
  if (to.follower != 0) objects_[to.follower].owner = id;
  if constexpr (!running) {
    to.status = from.status;
    to.point = from.point;
    to.mode = from.mode;
    to.object = from.object;
    to.where = from.where;
    to.pc = from.pc;
    to.deadline = from.deadline;
    to.waiting_on.swap(from.waiting_on);
    for (object_id o : to.waiting_on)
      for (operation_id& w : objects_[o].waiters)
        if (w == old) w = id;
    from.waiting_on.clear();
  } else {
    to.waiting_on.clear();  // the running operation waits for nothing
  }
  const bool listed =
      running || from.status == op_status::enabled || (from.status == op_status::blocked && from.deadline);
  if (listed) {
    // unlist_enabled(old) then list_enabled(to), in one pass: `to` has the
    // highest id, so its entry goes last, and the entries after old's move
    // down by one.
    const std::size_t last = enabled_.size() - 1;
    for (std::size_t i = from.listed_at; i < last; ++i) {
      enabled_[i] = enabled_[i + 1];
      ops_[enabled_[i].id].listed_at = static_cast<std::uint32_t>(i);
    }
    pending_operation& p = enabled_[last];
    p.id = id;
    p.chain = to.chain;
    p.parent = old;
    if constexpr (!running) {
      // pending_of(to), in place: `to` is not a timed wait unless blocked with a deadline.
      p.point = to.point;
      p.object = to.object;
      p.timed = to.status == op_status::blocked;  // listed and blocked: it has a deadline
      p.lock = to.lock;
    }
    to.listed_at = static_cast<std::uint32_t>(last);
  }
  from.status = op_status::finished;
  from.point = point_kind::finish;
  from.lock = false;
  from.mode = wait_mode::none;
  from.deadline.reset();
  from.self = 0;
  from.follower = 0;
  if (fibers_ != nullptr) [[likely]] fibers_->move_slot_now(old, id);
  else backend_.move_slot(old, id);
  // config_, not control.weak_memory (the same flag, set by run()): this
  // thread-local's access would make the compiler save registers around it.
  if (hb != nullptr || config_.memory_model == memory_model::rc11) [[unlikely]] continuation_sees(old, id);
  return id;
}

}  // namespace heddle::detail
