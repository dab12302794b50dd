// Continuations without a fiber each: engine::renew and engine::renew_at_point
// (engine.hpp).
//
// PCT^t (Mukherjee et al., OOPSLA 2020, section 3.2) needs every resumption of
// a coroutine to be an operation of its own, in the chain of whatever made it
// ready, and PCT needs it to be a new operation, with a fresh priority. The
// task runtime (src/runtime) runs a coroutine on the fiber of the operation
// that resumed it, so a resumption only has to give that operation a new
// identity.
//
// Ids are labels of records (engine.hpp: operation, operation_label): a
// record is one fiber's line of operations, a spawned one and its
// continuations, and runs one id at a time. A resumption is a new id for the
// same record: a 16-byte label (record, chain, parent, name), the record's id,
// chain and parent, the owners of the objects that follow it, and its entry
// in the enabled set. The old id is finished because its record runs another
// (engine::status_of); nothing is copied and the fiber does not move. A yield
// or a co_await of a completed task renews the running operation and takes a
// decision at once (renew_at_point, engine.cpp).
//
// Contract: `op` has started and has not finished. Objects the old operation
// owns (a mutex it holds) keep naming it: a thread mutex held across a
// co_await is unlocked by another operation, as it may be by another thread in
// a real thread pool, and heddle reports that unlock as misuse.
#include "engine/engine_internal.hpp"
#include "engine/weak_memory.hpp"

namespace heddle::detail {

static_assert(sizeof(operation) == 128);
static_assert(sizeof(operation_label) == 16);

operation_id engine::renew(operation_id old, std::uint32_t chain) {
  const operation_id id = continue_as<false>(old, chain);
  if (running_ == old) running_ = id;  // the same record: running_record_ stays
  return id;
}

void engine::grow_labels() {
  while (labels_.size() < op_count_) labels_.emplace_back();
}

void engine::continuation_sees(operation_id old, operation_id id) {
  const operation_id was_running = running_;
  running_ = old;
  if (hb != nullptr) hb->spawned(id);
  if (control.weak_memory) wm_spawned(id);
  running_ = was_running;
}

}  // namespace heddle::detail
