// Continuations without a fiber each: engine::renew and engine::renew_at_point
// (engine.hpp).
//
// PCT^t (Mukherjee et al., OOPSLA 2020, section 3.2) needs every resumption of
// a coroutine to be an operation of its own, in the chain of whatever made it
// ready, and PCT needs it to be a new operation, with a fresh priority. The
// task runtime (src/runtime) runs a coroutine on the fiber of the operation
// that resumed it, so a resumption only has to give that operation a new
// identity: a new record takes over the fiber (backend::move_slot), the
// pending point and the waits, and the old record finishes.
//
// That is on the path of every task switch, so it writes only what differs
// from the old record and what a reader of the new one needs: the name is
// shared (operation::start), not copied; the task the operation runs is
// followed by the engine (operation::follower), not looked up by the runtime;
// the fiber slot moves inline. A yield or a co_await of a completed task
// renews the running operation and takes a decision at once
// (renew_at_point, engine.cpp), which writes the new record's point once.
//
// Contract: `op` has started and has not finished. Objects the old operation
// owns (a mutex it holds) keep naming it: a thread mutex held across a
// co_await is unlocked by another operation, as it may be by another thread in
// a real thread pool, and heddle reports that unlock as misuse.
#include "engine/engine_internal.hpp"
#include "engine/weak_memory.hpp"

namespace heddle::detail {

// Two cache lines: a task program writes one record per coroutine resumption.
static_assert(sizeof(operation) == 128);

operation_id engine::renew(operation_id old, std::uint32_t chain) {
  const operation_id id = continue_as<false>(old, chain);
  if (running_ == old) running_ = id;
  return id;
}

void engine::grow_operations() {
  while (ops_.size() < op_count_) ops_.emplace_back();
}

void engine::continuation_sees(operation_id old, operation_id id) {
  const operation_id was_running = running_;
  running_ = old;
  if (hb != nullptr) hb->spawned(id);
  if (control.weak_memory) wm_spawned(id);
  running_ = was_running;
}

}  // namespace heddle::detail
