// Continuations without a fiber each: engine::renew (engine.hpp).
//
// PCT^t (Mukherjee et al., OOPSLA 2020, section 3.2) needs every resumption of
// a coroutine to be an operation of its own, in the chain of whatever made it
// ready, and PCT needs it to be a new operation, with a fresh priority. The
// task runtime (src/runtime) runs a coroutine on the fiber of the operation
// that resumed it, so a resumption only has to give that operation a new
// identity: a new record takes over the fiber (backend::move_slot), the
// pending point and the waits, and the old record finishes. That costs a
// record, not a fiber (about 3 decisions today, of which this function is
// the larger part; docs/performance.md, "Tasks").
//
// Contract: `op` has started and has not finished. Objects the old operation
// owns (a mutex it holds) keep naming it: a thread mutex held across a
// co_await is unlocked by another operation, as it may be by another thread in
// a real thread pool, and heddle reports that unlock as misuse.
#include "engine/engine.hpp"
#include "engine/weak_memory.hpp"

namespace heddle::detail {

operation_id engine::renew(operation_id old, std::uint32_t chain) {
  const operation_id id = op_count_++;
  if (id == ops_.size()) ops_.emplace_back();
  operation& from = ops_[old];
  operation& to = ops_[id];
  to.id = id;
  to.status = from.status;
  to.point = from.point;
  to.lock = from.lock;
  to.mode = from.mode;
  to.object = from.object;
  to.where = from.where;
  to.pc = from.pc;
  to.deadline = from.deadline;
  to.woken_by = from.woken_by;
  to.reason = from.reason;
  to.started = true;
  to.unwind_requested = false;
  to.abandoned = false;
  to.abort_in_flight = false;
  to.waiting_on.swap(from.waiting_on);
  to.parent = old;
  to.chain = chain != 0 ? chain : from.chain;
  to.self = from.self;
  to.name = from.name;
  to.body = nullptr;
  if (to.self != 0) objects_[to.self].owner = id;
  for (object_id o : to.waiting_on)
    for (operation_id& w : objects_[o].waiters)
      if (w == old) w = id;
  const bool listed = from.status == op_status::enabled || (from.status == op_status::blocked && from.deadline);
  if (listed) {
    // unlist_enabled(old) then list_enabled(to), in one pass: `to` has the
    // highest id, so its entry goes last, and the entries after old's move
    // down by one.
    const std::size_t last = enabled_.size() - 1;
    for (std::size_t i = from.listed_at; i < last; ++i) {
      enabled_[i] = enabled_[i + 1];
      ops_[enabled_[i].id].listed_at = static_cast<std::uint32_t>(i);
    }
    // pending_of(to), in place: `to` is not a timed wait unless blocked with a deadline.
    pending_operation& p = enabled_[last];
    p.id = id;
    p.chain = to.chain;
    p.parent = old;
    p.point = to.point;
    p.object = to.object;
    p.timed = to.status == op_status::blocked;  // listed and blocked: it has a deadline
    p.lock = to.lock;
    to.listed_at = static_cast<std::uint32_t>(last);
  }
  from.status = op_status::finished;
  from.point = point_kind::finish;
  from.lock = false;
  from.mode = wait_mode::none;
  from.deadline.reset();
  from.self = 0;
  from.waiting_on.clear();
  backend_.move_slot(old, id);
  // What the old operation has seen, the new one has (race detector, rc11 views).
  const operation_id was_running = running_;
  running_ = old;
  if (hb != nullptr) hb->spawned(id);
  if (control.weak_memory) wm_spawned(id);
  running_ = was_running == old ? id : was_running;
  return id;
}

}  // namespace heddle::detail
