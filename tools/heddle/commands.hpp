// The subcommands of the `heddle` CLI. Each takes its parsed arguments and
// returns the process exit status (DESIGN.md section 12): 0 no bug, 1 bug
// found, 2 usage or input error, 3 internal error. A usage or input problem is
// thrown as heddle::usage_error and printed by main() as one line.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace heddle::cli {

enum exit_code : int { no_bug = 0, bug_found = 1, usage_problem = 2, internal_error = 3 };

struct list_arguments {
  std::string program;
  std::string filter;
};
int run_list(const list_arguments& args);

struct test_arguments {
  std::string program;
  std::string filter;
  // Option values exactly as typed; validated before the binary runs.
  std::optional<std::string> iterations, time_budget, strategy, seed, max_steps, fair_after, stack_size, out,
      backend;
  // Worker processes (default: one per CPU; 0 runs in the test process),
  // the hang watchdog, this machine's share of the iterations ("I/N").
  std::optional<std::string> parallel, iteration_timeout, shard;
  // Programs built with heddle-cc/heddle-c++: memory points, race detection.
  std::optional<std::string> memory, detect_races;
  // heddle::atomic's memory model: sc or rc11 (docs/memory-model.md).
  std::optional<std::string> memory_model;
  // Lincheck tests only: scenarios to generate.
  std::optional<std::string> scenarios;
  // Spurious events (rare choices, in a share of the iterations), and the
  // race reports to leave out (a ThreadSanitizer suppressions file).
  std::optional<std::string> spurious_wakeups, spurious_cas_failures, suppressions;
  bool fail_on_max_steps = false;
  bool explore = false;            // go on after bugs, group them by signature
  bool check_determinism = false;  // run each iteration three times, compare
  bool record_iterations = false;  // per-iteration index and schedule hash in the JSON
  bool no_progress = false;
  bool no_minimize = false;  // save bugs' traces as found
  std::string format = "text";
  std::optional<std::string> json_out;  // also write the JSON summary here
};
int run_test(const test_arguments& args);

struct merge_arguments {
  std::vector<std::string> inputs;  // JSON summaries of the shards of one run
  std::optional<std::string> json_out;
  std::string format = "text";
};
int run_merge(const merge_arguments& args);

struct run_arguments {
  std::vector<std::string> command;  // the program, then its arguments
  // Option values exactly as typed; validated before the program runs.
  std::optional<std::string> iterations, time_budget, strategy, seed, max_steps, out, iteration_timeout,
      exit_code_is_bug, memory, detect_races, backend, memory_model;
  std::optional<std::string> check;  // a shell command that judges each iteration's output
  // The engine options heddle test has too, and push-button's own: the exit
  // status the program ends with when it has no bug (--expect-exit).
  std::optional<std::string> spurious_wakeups, spurious_cas_failures, fair_after, stack_size, suppressions,
      expect_exit;
  bool fail_on_max_steps = false;
  bool check_determinism = false;  // run each iteration three times, compare
  bool record_iterations = false;
  std::string format = "text";
};
int run_run(const run_arguments& args);

struct replay_arguments {
  std::string trace;  // a trace file, or a compact "heddle:1:..." string
  std::optional<std::string> program;
  // How long the replay may go without finishing (push-button: without
  // progress) before it is a hang; default: the trace's --iteration-timeout.
  std::optional<std::string> iteration_timeout;
};
int run_replay(const replay_arguments& args);

struct report_arguments {
  std::string trace;  // a trace file, JSON or compact
  std::optional<std::string> html, perfetto;
};
int run_report(const report_arguments& args);

}  // namespace heddle::cli
