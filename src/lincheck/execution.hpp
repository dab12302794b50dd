// Running a scenario under the controlled scheduler, and recording what
// happened: the history (each call with the logical times of its invocation and
// response), the interleaving (invocations, responses, and where a thread was
// switched out in the middle of a call), and the schedule in terms of the
// scenario (which thread ran, in which call), so a minimized scenario can
// follow the same schedule after calls were removed.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "backends/fiber_backend.hpp"
#include "engine/engine.hpp"
#include "engine/strategy.hpp"
#include "heddle/lincheck.hpp"

namespace heddle::lincheck::detail {

inline constexpr std::size_t no_actor = std::numeric_limits<std::size_t>::max();
inline constexpr std::size_t no_thread = std::numeric_limits<std::size_t>::max();

// One decision of a run, in scenario terms. `thread` is 0 for the sequential
// parts (operation 1) and t+1 for thread t of the parallel part; `actor` is the
// id of the call the thread was in, or about to start.
struct schedule_entry {
  bool data = false;        // a data choice (then `value` is what was chosen)
  std::size_t thread = no_thread;
  std::size_t actor = no_actor;
  std::uint64_t value = 0;
};

// One row of the interleaving table.
struct interleaving_event {
  enum class kind : std::uint8_t { invoke, respond, switched };
  kind what = kind::invoke;
  std::size_t thread = 0;
  std::size_t call = 0;  // index into the history (invoke, respond)
  std::string text;      // where the thread stopped (switched)
};

struct run_record {
  history calls;
  std::vector<interleaving_event> events;
  std::vector<schedule_entry> schedule;
  std::optional<bug> found;
  bool hit_max_steps = false;
  bool stopped = false;  // the strategy stopped the run (not judged)
  std::uint64_t steps = 0;
  std::uint64_t atomic_steps = 0;  // decisions at atomic operations
  std::uint64_t memory_steps = 0;  // decisions at plain memory accesses (instrumented code)
  std::vector<trace_step> trace;  // the run's decisions as the engine took them: a trace's steps
};

// Sees every decision of a run as it is taken: the engine's step (as a trace
// records it) and the same decision in scenario terms. For a process that may
// die in the middle of a run (crash_minimize.cpp streams both to shared
// memory); without one, a run costs no more than a null check per decision.
class run_observer {
 public:
  virtual ~run_observer() = default;
  virtual void begin_run() = 0;
  virtual void decided(const trace_step& step, const schedule_entry& entry) = 0;
};

// What the verdict on one run is, when it is a failure.
struct judgement {
  std::string kind;  // "non-linearizable", "deadlock", ...
  std::optional<bug_kind> bug;
  std::string message;
};

// A declaration as a body for heddle::explore(): its judge is the verifier.
// The iteration's first decision is a data choice of which of the
// declaration's scenarios runs (scenario s generated from (seed, s), as
// check() does), so one iteration's trace names its scenario and a systematic
// strategy explores that choice like any other branch. A history no order
// explains ends the iteration with an assertion bug "<kind>: <explanation>"
// (kind as judgement::kind); a deadlock the model blocks in too ends it
// quietly (engine/deadlock_judge.hpp). `d` is copied.
std::function<void()> explore_body(const declaration& d);
// check_as() with the runner's search: explore_body() under `runner` (its
// --parallel, --shard, --time-budget, --check-determinism...), then the first
// failure rebuilt in this process (its scenario from the recorded choice, its
// run replayed) for check()'s minimizer, report and trace (check.cpp).
result check_in_runner(const declaration& d, const heddle::options& runner, const std::string& test,
                       const std::string& result_file, const std::string& trace_directory);

class executor {
 public:
  executor(const erased_spec& spec, const lincheck::options& opts);

  // Runs `sc` once; `chooser` takes every decision (the executor records them).
  // The record stays valid until the next run.
  const run_record& run(const scenario& sc, heddle::detail::strategy& chooser);

  // Runs `sc` with a fresh strategy of the options' spec for up to
  // opts.iterations schedules; returns the first failing run's judgement (the
  // run is then last_run()). Adds the runs and their steps to `totals`.
  std::optional<judgement> explore(const scenario& sc, std::uint64_t seed, result& totals);
  // Runs `sc` once, following `schedule` where the scenario allows it.
  std::optional<judgement> follow(const scenario& sc, const std::vector<schedule_entry>& schedule);

  std::optional<judgement> judge(const run_record& r) const;
  // The verdict on a history; with `deadlock` (the engine's description), on
  // one whose unfinished calls are blocked: no judgement when the model blocks
  // there too.
  std::optional<judgement> judge_calls(const history& calls, const std::string* deadlock) const;
  // Runs `sc` as the body of an iteration already under way (its operation 1),
  // recording its history; the record stays valid until the next run.
  const run_record& run_here(const scenario& sc);
  const run_record& last_run() const { return record_; }
  // Runs begun so far, all scenarios together (read by the crash guard).
  std::uint64_t runs_started() const noexcept { return runs_started_; }
  const operation_names& names() const { return names_; }

  // Read by the strategies wrapped around a run.
  std::size_t thread_of(operation_id op) const { return op < thread_of_.size() ? thread_of_[op] : no_thread; }
  std::size_t position(std::size_t thread) const { return thread < position_.size() ? position_[thread] : no_actor; }
  bool in_call(std::size_t thread) const { return thread < in_call_.size() && in_call_[thread]; }
  run_record& record() { return record_; }
  // The scenario of the run in flight (null between runs).
  const scenario* running() const { return running_; }
  void observe(run_observer* o) { observer_ = o; }
  run_observer* observer() const { return observer_; }

 private:
  void begin(const scenario& sc);
  void body(const scenario& sc);
  void invoke(object_instance& object, const actor& a, std::size_t thread, part where);

  const erased_spec& spec_;
  const lincheck::options& opts_;
  operation_names names_;
  heddle::detail::fiber_backend fibers_;
  heddle::detail::engine engine_;
  run_record record_;
  std::uint64_t clock_ = 0;
  std::uint64_t runs_started_ = 0;
  std::vector<std::size_t> thread_of_;  // index = operation id
  std::vector<std::size_t> position_;   // index = thread
  std::vector<bool> in_call_;           // index = thread
  run_observer* observer_ = nullptr;
  const scenario* running_ = nullptr;

};

}  // namespace heddle::lincheck::detail
