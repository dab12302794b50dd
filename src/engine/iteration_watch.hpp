// An observer of one iteration, called by the engine at its end and at steps
// it asks for. The actor runtime (src/runtime) is one: its liveness monitors
// must be judged when an iteration ends however it ends (every operation
// finished, only idle actors left, max_steps), and when a hot monitor's
// temperature passes its threshold, which is a step known in advance.
//
// Contract: a watch is set for the running iteration only (engine::set_watch;
// the engine forgets it when the iteration is over); its calls run on the
// engine's thread with no operation switched in, before the iteration's
// operations are unwound (after_iteration: after), and may report a bug with
// engine::report(..., unwind_now = false). A watch asks for at most one step
// at a time (engine::watch_step), at no cost to the decisions before it: the
// engine folds the request into the max_steps comparison it makes anyway.
#pragma once

#include <cstdint>

#include "heddle/model.hpp"

namespace heddle::detail {

enum class iteration_end : std::uint8_t {
  finished,   // every operation finished
  quiescent,  // nothing enabled, and every operation left is idle (iteration_watch::idle)
  max_steps,  // max_steps cut the iteration
};

class iteration_watch {
 public:
  virtual ~iteration_watch() = default;
  // Nothing is enabled and `op` is blocked: true when it only waits for work
  // (an actor with an empty inbox), so that it is no part of a deadlock.
  virtual bool idle(operation_id op) const = 0;
  // The iteration is ending, as `how` says (before its operations are unwound).
  virtual void at_end(iteration_end how) = 0;
  // The iteration reached the step asked for with engine::watch_step.
  virtual void at_step(std::uint64_t step) = 0;
  // The iteration is over and its operations unwound.
  virtual void after_iteration() = 0;
};

}  // namespace heddle::detail
