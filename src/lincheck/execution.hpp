// Running a scenario under the controlled scheduler, and recording what
// happened: the history (each call with the logical times of its invocation and
// response) and the interleaving (invocations, responses, and where a thread
// was switched out in the middle of a call). The runner (src/runner) runs the
// iterations; this is the body it runs, the judge of its history, and the
// glue that turns the runner's result into check()'s.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "backends/fiber_backend.hpp"
#include "engine/engine.hpp"
#include "engine/strategy.hpp"
#include "heddle/explore.hpp"
#include "heddle/lincheck.hpp"
#include "runner/minimize.hpp"

namespace heddle::lincheck::detail {

inline constexpr std::size_t no_actor = std::numeric_limits<std::size_t>::max();
inline constexpr std::size_t no_thread = std::numeric_limits<std::size_t>::max();

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
  std::optional<bug> found;
  std::uint64_t steps = 0;
};

// What the verdict on one run is, when it is a failure.
struct judgement {
  std::string kind;  // "non-linearizable", "deadlock", ...
  std::optional<bug_kind> bug;
  std::string message;
};

// A declaration as a body for the runner: its judge is the verifier. The
// iteration's first decision is a data choice of which of the declaration's
// scenarios runs (scenario s generated from (seed, s)), so one iteration's
// trace names its scenario and a systematic strategy explores that choice
// like any other branch; the runner's input (iteration_arguments(), a
// minimized or replayed trace's) may name the scenario and keep only some
// of its calls instead. With `given`, that scenario runs instead (the
// RapidCheck front end). A history no order explains ends the iteration with
// an assertion bug "<kind>: <explanation>" (kind as judgement::kind); a
// deadlock the model blocks in too ends it quietly (engine/deadlock_judge.hpp).
// `d` is copied.
std::function<void()> explore_body(const declaration& d, std::optional<scenario> given = std::nullopt);
// How the runner's minimizer shrinks a failing scenario along with its
// schedule: the scenario's removals (scenario.hpp), kept when the run still
// fails the same way (same kind of failure, the same signal for a crash).
heddle::detail::input_reduction scenario_reduction(const declaration& d);
// check() and HEDDLE_LINCHECK_TEST: explore_body() under `runner` (its
// --parallel, --shard, --time-budget, --check-determinism, --explore...),
// in one worker process at least so that a crash comes back as a bug; the
// first failure, minimized by the runner, rebuilt in this process (or in a
// child, for a crash) for check()'s report (check.cpp).
result check_in_runner(const declaration& d, const heddle::options& runner, const std::string& test,
                       const std::string& trace_directory);
// The test's record for `heddle test` (runner/summary_json.hpp's fields that
// a lincheck run has, plus a "lincheck" object): registered.cpp.
nlohmann::json record_of(const std::string& id, const lincheck::options& o, const result& r);
// Replays the failure's trace `given.replay` of test `id` through the runner
// (registered.cpp): a crash kills the process again; another failure comes
// back as the record of a bug, as `heddle replay` expects. Throws
// heddle::usage_error for a trace that does not fit the declaration.
nlohmann::json replay_record(const std::string& id, declaration d, const heddle::options& given);

class executor {
 public:
  executor(const erased_spec& spec, const lincheck::options& opts);

  // Runs `sc` once as explore_body() does (the choice of scenario first);
  // `chooser` takes every decision. The record stays valid until the next run.
  const run_record& run(const scenario& sc, heddle::detail::strategy& chooser);

  std::optional<judgement> judge(const run_record& r) const;
  // The verdict on a history; with `deadlock` (the engine's description), on
  // one whose unfinished calls are blocked: no judgement when the model blocks
  // there too.
  std::optional<judgement> judge_calls(const history& calls, const std::string* deadlock) const;
  // Runs `sc` as the body of an iteration already under way (its operation 1),
  // recording its history; the record stays valid until the next run.
  const run_record& run_here(const scenario& sc);
  const operation_names& names() const { return names_; }

  // Read by the strategy wrapped around a run.
  std::size_t thread_of(operation_id op) const { return op < thread_of_.size() ? thread_of_[op] : no_thread; }
  std::size_t position(std::size_t thread) const { return thread < position_.size() ? position_[thread] : no_actor; }
  bool in_call(std::size_t thread) const { return thread < in_call_.size() && in_call_[thread]; }
  run_record& record() { return record_; }

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
  std::vector<std::size_t> thread_of_;  // index = operation id
  std::vector<std::size_t> position_;   // index = thread
  std::vector<bool> in_call_;           // index = thread
};

}  // namespace heddle::lincheck::detail
