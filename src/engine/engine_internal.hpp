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

inline void engine::switch_to(std::uint32_t from, std::uint32_t to) {
  if (fibers_ != nullptr) [[likely]] fibers_->switch_now(from, to);
  else backend_.switch_to(from, to);
}

// The record goes on under a new id: a label (16 bytes), the record's id,
// chain and parent, the owners of the objects that follow it, and its entry
// in the enabled set. Nothing is copied and the fiber stays in its slot; the
// old id is finished because its record no longer runs it (status_of).
template <bool running>
inline operation_id engine::continue_as(operation_id old, std::uint32_t chain) {
  const operation_id id = op_count_++;
  if (id >= labels_.size()) [[unlikely]] grow_labels();
  // The record runs `old` now, so its chain and start are old's label's: a
  // resumption of the running operation reads no label (running_record_).
  std::uint32_t r;
  if constexpr (running) r = running_record_;
  else r = labels_[old].record;
  operation& op = ops_[r];
  if (chain == 0) chain = op.chain;
  labels_[id] = {r, chain, old, op.start};
  op.id = id;
  op.parent = old;
  op.chain = chain;
  objects_[op.self].owner = id;
  if (op.follower != 0) objects_[op.follower].owner = id;
  if constexpr (!running) {
    for (object_id o : op.waiting_on)
      for (operation_id& w : objects_[o].waiters)
        if (w == old) w = id;
  }
  const bool listed = running || op.status == op_status::enabled || (op.status == op_status::blocked && op.deadline);
  if (listed) {
    // unlist_enabled(old) then list_enabled(op), in one pass: `id` is the
    // highest, so its entry goes last, and the entries after old's move
    // down by one.
    const std::size_t last = enabled_.size() - 1;
    for (std::size_t i = op.listed_at; i < last; ++i) {
      enabled_[i] = enabled_[i + 1];
      ops_[enabled_[i].record].listed_at = static_cast<std::uint32_t>(i);
    }
    pending_operation& p = enabled_[last];
    p.id = id;
    p.chain = chain;
    p.parent = old;
    p.record = r;
    if constexpr (!running) {
      // pending_of(op), in place: not a timed wait unless blocked with a deadline.
      p.point = op.point;
      p.object = op.object;
      p.timed = op.status == op_status::blocked;  // listed and blocked: it has a deadline
      p.lock = op.lock;
    }
    op.listed_at = static_cast<std::uint32_t>(last);
  }
  // config_, not control.weak_memory (the same flag, set by run()): this
  // thread-local's access would make the compiler save registers around it.
  if (hb != nullptr || config_.memory_model == memory_model::rc11) [[unlikely]] continuation_sees(old, id);
  return id;
}

}  // namespace heddle::detail
