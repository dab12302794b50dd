// Options that steer one exploration run.
//
// An aggregate, so a test can set only what it cares about with designated
// initializers: HEDDLE_TEST(bank, withdraw, .iterations = 500, .strategy = "pct:3").
// Precedence, lowest first: these defaults, values given in code, HEDDLE_*
// environment variables, --heddle_* flags of a test binary (set by the CLI).
// Every option that changes how an iteration executes is written into the trace
// header, so a replay runs under the same rules.
// Designated initializers must name fields in declaration order: iterations,
// time_budget, strategy, seed, max_steps, fail_on_max_steps, spurious_wakeups,
// spurious_cas_failures, stack_size, fair_after, stop_on_first_bug,
// print_report, out, replay, parallel, iteration_timeout, shard_index,
// shard_count, check_determinism, progress, record_iterations, memory,
// detect_races, backend, exit_code_is_bug, minimize, scenarios, memory_model,
// suppressions, expect_exit.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace heddle {

// Which plain memory accesses of a program built with -fsanitize=thread
// (heddle-cc, heddle-c++) become scheduling points. Atomics always are; the
// race detector sees every access whatever the policy.
enum class memory_policy : std::uint8_t {
  shared,  // accesses to addresses more than one operation has touched (the default)
  all,     // every access
  none,    // no access: only atomics and synchronization are points
};
std::string_view to_string(memory_policy policy) noexcept;
std::optional<memory_policy> parse_memory_policy(std::string_view name) noexcept;

// How atomics with orders weaker than seq_cst behave (docs/memory-model.md).
enum class memory_model : std::uint8_t {
  sc,    // every atomic operation is sequentially consistent: only interleavings
  rc11,  // RC11 (Lahav et al., PLDI 2017): stale reads, release/acquire, fences
};
std::string_view to_string(memory_model model) noexcept;
std::optional<memory_model> parse_memory_model(std::string_view name) noexcept;

struct options {
  // How many iterations (executions of the body) to run at most.
  std::uint64_t iterations = 1000;
  // Stop after this much wall-clock time; zero means no limit.
  std::chrono::milliseconds time_budget{0};
  // Strategy spec (DESIGN.md section 7): "random", "pct:3", ...
  std::string strategy = "portfolio";
  // Run seed; iteration i uses a seed derived from (seed, i).
  std::uint64_t seed = 0x6865646466ull;
  // Decisions per iteration before the max-steps policy applies.
  std::uint64_t max_steps = 20000;
  // At max_steps: false ends the iteration quietly (counted in statistics),
  // true reports a livelock.
  bool fail_on_max_steps = false;
  // Condition variables may wake up spuriously (a choice the strategy takes).
  bool spurious_wakeups = true;
  // compare_exchange_weak may fail spuriously (a choice the strategy takes).
  bool spurious_cas_failures = true;
  // Stack size of each operation's fiber, in bytes (rounded up to pages).
  std::size_t stack_size = 256 * 1024;
  // fair(S): steps of each iteration left to S before uniform random takes
  // over, so every enabled operation keeps running (liveness checks).
  std::uint64_t fair_after = 10000;
  // Stop at the first bug. false (--explore) keeps going and groups the bugs
  // by signature (kind + source location + message), with a count and one
  // saved trace per signature.
  bool stop_on_first_bug = true;
  // Print the bug report to stderr when a bug is found.
  bool print_report = true;
  // Directory where bug traces are written; empty disables writing.
  std::string out = "heddle-out";
  // When non-empty: a trace file (JSON or compact) to replay instead of exploring.
  std::string replay;
  // 0 runs the iterations in this process (what code calling explore() sees by
  // default). N > 0 forks N worker processes inside explore(), each pinned to
  // its own CPU, which share the iteration indices; a crash or hang of a worker
  // is a bug with a replayable trace and the worker is replaced. The CLI
  // passes the number of CPUs (docs/running.md).
  unsigned parallel = 0;
  // With workers: an iteration running longer than this is a hang (a bug),
  // and its worker is killed and replaced. Zero means no limit.
  std::chrono::milliseconds iteration_timeout{0};
  // This run's share of the iteration indices: i with i % shard_count ==
  // shard_index (--shard I/N, or GoogleTest's GTEST_SHARD_INDEX/TOTAL_SHARDS).
  std::uint64_t shard_index = 0;
  std::uint64_t shard_count = 1;
  // Replays each iteration twice more and reports the first step where the
  // program did something else (it depends on what heddle does not control).
  bool check_determinism = false;
  // Draws a progress line on stderr when stderr is a terminal.
  bool progress = true;
  // Keeps (index, schedule hash, steps) of every iteration in the result.
  bool record_iterations = false;
  // Instrumented plain accesses that are scheduling points (HEDDLE_MEMORY,
  // --heddle_memory=all|shared|none).
  memory_policy memory = memory_policy::shared;
  // Report unordered conflicting accesses of instrumented code as data_race
  // bugs (HEDDLE_DETECT_RACES, --heddle_detect_races). Off, a racy program
  // runs on to its assertions, with memory accesses still scheduling points.
  bool detect_races = true;
  // How operations run (DESIGN.md section 6): "fibers" (one OS thread, the
  // fastest) or "threads" (one OS thread per operation with futex hand-off:
  // thread_local, errno and real blocking calls behave as in production).
  // Recorded in traces; a trace replays on either backend.
  std::string backend = "fibers";
  // Push-button runs: a program that exits with a non-zero status has a bug.
  bool exit_code_is_bug = true;
  // Minimize each bug's trace before saving it (fewest preemptions, then the
  // shortest prefix; docs/reports.md). Off, the trace is saved as found
  // (HEDDLE_MINIMIZE, --heddle_minimize, heddle test --no-minimize).
  bool minimize = true;
  // Lincheck tests (HEDDLE_LINCHECK_TEST) only: scenarios to generate, when
  // HEDDLE_SCENARIOS or --heddle_scenarios gives it (heddle test --scenarios);
  // otherwise the test's own. explore() does not read it.
  std::uint64_t scenarios = 100;
  // The memory model of heddle::atomic (HEDDLE_MEMORY_MODEL,
  // --heddle_memory_model=sc|rc11, heddle test --memory-model). Recorded in traces.
  heddle::memory_model memory_model = heddle::memory_model::sc;
  // A ThreadSanitizer suppressions file (race:function, race:file,
  // called_from_lib:library): data races it matches are counted, not
  // reported (--suppressions, HEDDLE_SUPPRESSIONS, or suppressions=FILE in
  // HEDDLE_OPTIONS). Empty: none.
  std::string suppressions;
  // Push-button runs: the exit status the program ends with when it has no
  // bug. -1 (the default) learns it from the first iteration that exits.
  int expect_exit = -1;
};

}  // namespace heddle
