// Which enabled operations step aside at a decision: the one rule every
// built-in strategy applies where the program itself says it waits, so that
// a wait loop lets what it waits for run instead of spinning to --max-steps,
// and no strategy spends its search on a loop that can only try again.
//
// - An operation that waits runs only when nothing else can: one at a sleep
//   point (a sleep whose deadline has come too: libheddle-rt makes
//   sched_yield, and a spin on loads, such a zero sleep), or blocked with a
//   deadline (its timeout is time passing, which comes when the others do
//   not run; spdlog's worker waits with a timeout in a loop).
// - The current operation about to yield hands over: another goes first. A
//   yield changes no memory, so the program's executions are the same.
//   Another operation that is paused at a yield has not yielded yet, and does
//   not step aside.
//
// How each strategy applies it, and where one departs (a preemption bound
// that counts a switch at a yield, PCT's priorities that a yield keeps), is
// said where it does so and in docs/strategies.md ("Who steps aside").
#pragma once

#include "engine/strategy.hpp"

namespace heddle::detail {

inline bool waits(const pending_operation& p) noexcept { return p.timed || p.point == point_kind::sleep; }

inline bool yields_turn(const pending_operation& p, operation_id current) noexcept {
  return p.id == current && p.point == point_kind::yield;
}

// Either of the above: the operation goes after every one that does not.
inline bool steps_aside(const pending_operation& p, operation_id current) noexcept {
  return waits(p) || yields_turn(p, current);
}

}  // namespace heddle::detail
