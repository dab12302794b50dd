// Trace minimization (DESIGN.md section 12): after a bug, the schedule with the
// fewest preemptions and then the shortest prefix that still ends in the same bug.
//
// Contract: minimize() re-runs the test body under the guided strategy
// (src/strategies/guided.hpp) in an engine of its own, configured from the
// trace header, and never changes the original. The minimized trace is the
// trace of the last accepted guided run, so `heddle replay` replays it exactly;
// it has no more preemptions than the original (and, with as many, no more
// steps), and its bug is the same bug (same_bug()). The effort is bounded by a number of runs and a
// time limit; with the time limit out of the way (it is a safety net, far above
// what small tests need) the result is deterministic. For a crash (a signal,
// a stack overflow) each candidate runs in a forked process of its own, so a
// candidate that crashes takes only that process down; such runs bring back
// their schedule and bug but no operation names.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

struct minimize_limits {
  std::uint64_t max_runs = 2000;
  std::chrono::milliseconds time_limit{10'000};
  std::size_t stack_size = 256 * 1024;
  // finalize_bug() kills the minimizing child this long after time_limit.
  std::chrono::milliseconds grace{2'000};
};

// One guided run, kept for reports: the trace it recorded and what the engine
// knew about it (operation names, object kinds, source locations).
struct recorded_run {
  heddle::trace trace;
  iteration_outcome outcome;
  std::uint64_t preemptions = 0;
  std::vector<std::uint64_t> preemption_steps;  // indices of the steps that preempted
};

struct minimization {
  // False when the trace was left as it is; `reason` then says why.
  bool minimized = false;
  std::string reason;
  recorded_run original;  // the original trace, re-run: its preemptions measured
  recorded_run best;      // the minimized trace (equal to `original` when not minimized)
  std::uint64_t runs = 0;  // guided iterations spent
  std::chrono::nanoseconds elapsed{0};
};

// Two bugs are the same when kind, message (with numbers masked: operation and
// object ids depend on the interleaving) and, except for deadlocks and
// livelocks, which are states of the whole program, source location agree.
bool same_bug(const bug& a, const bug& b);

minimization minimize(const std::function<void()>& body, const trace& original, const minimize_limits& limits = {});

}  // namespace heddle::detail
