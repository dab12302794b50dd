// `heddle run [options] -- ./program args...`: runs an unmodified program
// under heddle's control (push-button mode, DESIGN.md section 9). The program
// starts once; its fork server (libheddle-rt) runs one child per iteration,
// reports the first bug as `heddle test` does and writes its trace, which
// `heddle replay` re-runs.
//
// Contract: every option value is checked here, before the program starts
// (one line, exit 2); the program's fork server then reads them from HEDDLE_*
// variables. The exit status is the fork server's: 0 no bug, 1 bug, 2 usage
// or input error, 3 internal error.
#include <map>

#include <fmt/format.h>

#include "commands.hpp"
#include "engine/strategy.hpp"
#include "heddle/explore.hpp"
#include "pushbutton.hpp"
#include "runner/overrides.hpp"
#include "test_binary.hpp"

namespace heddle::cli {

int run_run(const run_arguments& a) {
  if (a.command.empty()) throw usage_error("no program to run (heddle run [options] -- ./program args...)");
  // HEDDLE_OPTIONS and the HEDDLE_* variables the program's fork server will
  // read: checked here too, so a bad one is one line before anything runs.
  options checked = detail::with_overrides({});
  std::map<std::string, std::string> variables;
  const auto pass = [&](const std::optional<std::string>& value, std::string_view name, std::string_view flag) {
    if (!value) return;
    detail::set_option(checked, name, *value, flag);
    std::string variable = "HEDDLE_";
    for (char c : name) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    variables[variable] = *value;
  };
  pass(a.iterations, "iterations", "--iterations");
  pass(a.time_budget, "time_budget", "--time-budget");
  pass(a.strategy, "strategy", "--strategy");
  pass(a.seed, "seed", "--seed");
  pass(a.max_steps, "max_steps", "--max-steps");
  pass(a.out, "out", "--out");
  pass(a.iteration_timeout, "iteration_timeout", "--iteration-timeout");
  pass(a.exit_code_is_bug, "exit_code_is_bug", "--exit-code-is-bug");
  if (a.fail_on_max_steps) variables["HEDDLE_FAIL_ON_MAX_STEPS"] = "1";
  if (a.check_determinism) variables["HEDDLE_CHECK_DETERMINISM"] = "1";
  // Instrumented programs only (heddle-cc/heddle-c++): which plain accesses are
  // scheduling points, and whether unordered ones are data_race bugs.
  pass(a.memory, "memory", "--memory");
  pass(a.detect_races, "detect_races", "--detect-races");
  pass(a.memory_model, "memory_model", "--memory-model");
  pass(a.backend, "backend", "--backend");
  if (a.check) {
    if (a.check->empty()) throw usage_error("bad value '' for --check: expected a shell command");
    variables["HEDDLE_CHECK"] = *a.check;
  }
  pass(a.spurious_wakeups, "spurious_wakeups", "--spurious-wakeups");
  pass(a.spurious_cas_failures, "spurious_cas_failures", "--spurious-cas-failures");
  pass(a.fair_after, "fair_after", "--fair-after");
  pass(a.stack_size, "stack_size", "--stack-size");
  pass(a.suppressions, "suppressions", "--suppressions");
  pass(a.expect_exit, "expect_exit", "--expect-exit");
  if (a.record_iterations) variables["HEDDLE_RECORD_ITERATIONS"] = "1";
  if (a.strategy) {
    (void)detail::make_strategy(*a.strategy, {.fair_after = checked.fair_after});  // a bad spec: one line, exit 2
  }
  if (a.format == "json") variables["HEDDLE_RUN_FORMAT"] = "json";
  const std::vector<std::string> arguments(a.command.begin() + 1, a.command.end());
  return run_under_heddle(resolve_program(a.command.front()), arguments, variables);
}

}  // namespace heddle::cli
