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
//
// A kind of test whose input can shrink too (lincheck: the calls of a
// scenario) gives an input_reduction: before the schedule is minimized, the
// minimizer tries its smaller inputs, biggest removal first, each following
// the failing schedule first (its deviations, keyed by operation progress, so
// the other operations keep their order) and then fresh random schedules, and
// keeps one that still ends in the same bug; until no candidate does. The
// input is the trace header's `arguments`: the body reads it with
// iteration_arguments(), and a replay of the saved trace runs it again.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

// The run count is the bound that decides how far a trace is minimized, so the
// same bug minimizes to the same trace on an idle laptop and on a loaded CI
// machine; the wall-clock limit is only a backstop against candidates that
// each take long (a slow program, a crash per candidate process).
struct minimize_limits {
  std::uint64_t max_runs = 2000;
  std::chrono::milliseconds time_limit{60'000};
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

// The input of the iteration running now: the replayed or minimized trace's
// header arguments; empty while a strategy searches.
const std::vector<std::string>& iteration_arguments();
void set_iteration_arguments(std::vector<std::string> arguments);

struct input_reduction {
  // Smaller inputs than `best`'s (its header arguments, its steps), biggest removal first.
  std::function<std::vector<std::vector<std::string>>(const trace& best)> candidates;
  // Whether a run's bug is the original's (default: same_bug()).
  std::function<bool(const bug& found, const bug& original)> same;
  // Told about each input kept, and whether the failing schedule kept it (the
  // input may record that); may be empty.
  std::function<void(std::vector<std::string>& kept, bool on_schedule)> accepted;
  std::uint64_t fresh_schedules = 50;  // random schedules per candidate when the recorded one passes
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

minimization minimize(const std::function<void()>& body, const trace& original, const minimize_limits& limits = {},
                      const input_reduction* reduce = nullptr);

}  // namespace heddle::detail
