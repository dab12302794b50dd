// `heddle`: the command-line tool (DESIGN.md section 12).
//
//   heddle list   <test-binary> [--filter GLOB]
//   heddle test   <test-binary> [--filter GLOB] [--iterations N] [--strategy S] ...
//   heddle run    [--iterations N] [--strategy S] ... -- <program> [args...]
//   heddle replay <trace-file>  [--program PATH]
//   heddle report <trace-file>  [--html FILE] [--perfetto FILE]
//   heddle merge  <summary.json>... [--json-out FILE]
//
// This file only parses arguments (CLI11) and turns failures into exit codes:
// 0 no bug, 1 bug found, 2 usage or input error, 3 internal error. A usage
// error is always one line on stderr, "heddle: <what went wrong>", never a
// stack trace. The subcommands live in command_*.cpp.
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"
#include "heddle/explore.hpp"
#include "heddle/version.hpp"
#include "test_binary.hpp"

namespace {

using namespace heddle::cli;

void add_filter(CLI::App* command, std::string& filter) {
  command->add_option("--filter", filter,
                      "Tests to select, GoogleTest filter syntax: 'account.*', 'a.*:b.*', 'account.*-account.slow'");
}

// The engine options heddle test and heddle run share beyond the usual ones.
void add_engine_flags(CLI::App* command, std::optional<std::string>& wakeups, std::optional<std::string>& cas,
                      std::optional<std::string>& suppressions) {
  command->add_option("--spurious-wakeups", wakeups,
                      "Condition variables may wake up spuriously, a rare choice in every fourth iteration after the first 16: "
                      "true (default) or false");
  command->add_option("--spurious-cas-failures", cas,
                      "compare_exchange_weak may fail spuriously, a rare choice in every fourth iteration after the first 16: "
                      "true (default) or false");
  command->add_option("--suppressions", suppressions,
                      "A ThreadSanitizer suppressions file: data races to leave out (race:function, race:file, "
                      "called_from_lib:library)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"heddle: controlled concurrency testing for C and C++.\n"
               "Finds interleaving bugs in HEDDLE_TEST tests, and replays each one from its trace.\n",
               "heddle"};
  app.set_version_flag("--version", fmt::format("heddle {}", heddle::version), "Print the version and exit");
  app.require_subcommand(1);
  app.footer("Exit status: 0 no bug, 1 bug found, 2 usage or input error, 3 internal error.\n"
             "Run 'heddle <command> --help' for a command's options.");

  list_arguments list;
  CLI::App* list_command = app.add_subcommand("list", "List the heddle tests in a test binary");
  list_command->add_option("test-binary", list.program, "A test binary linking heddle::main")->required();
  add_filter(list_command, list.filter);

  test_arguments test;
  CLI::App* test_command = app.add_subcommand("test", "Explore the heddle tests of a test binary for bugs");
  test_command->add_option("test-binary", test.program, "A test binary linking heddle::main")->required();
  add_filter(test_command, test.filter);
  test_command->add_option("--iterations", test.iterations, "Iterations per test, at most (default: the test's own)");
  test_command->add_option("--time-budget", test.time_budget, "Wall-clock limit per test: 30s, 500ms, 5m, 1h");
  test_command->add_option("--strategy", test.strategy, "Exploration strategy: portfolio (default), random, pct:D, ...");
  test_command->add_option("--seed", test.seed, "Run seed (decimal or 0x hex), for a repeatable run");
  test_command->add_option("--max-steps", test.max_steps, "Decisions per iteration before it ends");
  test_command->add_flag("--fail-on-max-steps", test.fail_on_max_steps, "Report reaching --max-steps as a livelock");
  test_command->add_option("--fair-after", test.fair_after, "Steps of fair(S)'s strategy S per iteration before random");
  test_command->add_option("--stack-size", test.stack_size, "Stack size of each operation, in bytes");
  test_command->add_option("--memory", test.memory,
                           "Instrumented plain accesses that are scheduling points: all, shared (default), none");
  test_command->add_option("--memory-model", test.memory_model,
                           "Memory model of heddle::atomic (and of std::atomic in instrumented code): sc (default) or rc11 "
                           "(docs/memory-model.md)");
  test_command->add_option("--detect-races", test.detect_races,
                           "Report data races in instrumented code: true (default) or false");
  test_command->add_option("--backend", test.backend, "How operations run: fibers (default) or threads (OS threads)");
  add_engine_flags(test_command, test.spurious_wakeups, test.spurious_cas_failures, test.suppressions);
  test_command->add_option("--scenarios", test.scenarios,
                           "Lincheck tests: scenarios to generate (default: the test's own); --iterations is then "
                           "the runs per scenario");
  test_command->add_option("--out", test.out, "Directory for bug traces (default: $HEDDLE_OUT or heddle-out)");
  test_command->add_option("--format", test.format, "Summary format: text, or json on stdout")
      ->check(CLI::IsMember({"text", "json"}));
  test_command->add_option("--json-out", test.json_out, "Also write the JSON summary to this file");
  test_command->add_option("--parallel", test.parallel,
                           "Worker processes, each pinned to a CPU (default: $HEDDLE_PARALLEL or the number of CPUs; "
                           "0 runs in the test process)");
  test_command->add_option("--iteration-timeout", test.iteration_timeout,
                           "With workers: an iteration running longer is a hang (a bug): 10s, 500ms");
  test_command->add_option("--shard", test.shard, "Run only shard I of N of the iterations: 0/3, 1/3, 2/3");
  test_command->add_flag("--explore", test.explore, "Keep going after a bug; group the bugs by root cause, with counts");
  test_command->add_flag("--check-determinism", test.check_determinism,
                         "Run each iteration three times and report where a run went differently");
  test_command->add_flag("--record-iterations", test.record_iterations,
                         "Put every iteration's index and schedule hash in the JSON summary");
  test_command->add_flag("--no-progress", test.no_progress, "No progress line, even on a terminal");
  test_command->add_flag("--no-minimize", test.no_minimize,
                         "Save each bug's trace as found, without minimizing it (for slow test bodies)");

  run_arguments run;
  CLI::App* run_command =
      app.add_subcommand("run", "Run an unmodified program (pthreads, std::thread) under heddle: heddle run -- ./prog args");
  run_command->add_option("--iterations", run.iterations, "Iterations (program runs) at most (default 1000)");
  run_command->add_option("--time-budget", run.time_budget, "Wall-clock limit: 30s, 500ms, 5m, 1h");
  run_command->add_option("--strategy", run.strategy, "Exploration strategy: portfolio (default), random, pct:D, ...");
  run_command->add_option("--seed", run.seed, "Run seed (decimal or 0x hex), for a repeatable run");
  run_command->add_option("--max-steps", run.max_steps, "Decisions per iteration before it ends");
  run_command->add_flag("--fail-on-max-steps", run.fail_on_max_steps, "Report reaching --max-steps as a livelock");
  run_command->add_option("--out", run.out, "Directory for bug traces (default: $HEDDLE_OUT or heddle-out)");
  run_command->add_option("--format", run.format, "Summary format: text, or json on stdout")
      ->check(CLI::IsMember({"text", "json"}));
  run_command->add_option("--iteration-timeout", run.iteration_timeout,
                          "An iteration without progress for this long is a hang (default 10s; 0: none)");
  run_command->add_option("--exit-code-is-bug", run.exit_code_is_bug,
                          "A non-zero exit status is a bug: true (default) or false");
  run_command->add_option("--memory", run.memory, "Scheduling points at plain memory accesses: all, shared, none");
  run_command->add_option("--memory-model", run.memory_model,
                          "Memory model of the program's atomics (std::atomic, C11, __atomic in code built with "
                          "heddle-cc/heddle-c++): sc (default) or rc11 (docs/memory-model.md)");
  run_command->add_option("--detect-races", run.detect_races,
                          "Report unordered conflicting accesses as data races: true (default) or false");
  run_command->add_option("--backend", run.backend,
                          "How the program's threads run: threads (default: OS threads, each with its own "
                          "thread_local variables) or fibers (faster; the threads share thread_local variables)");
  run_command->add_flag("--check-determinism", run.check_determinism,
                        "Run each iteration twice more on its schedule and stop if it diverges (the program "
                        "depends on something heddle does not control)");
  run_command->add_option("--check", run.check,
                          "A shell command run after each iteration without a bug, with the program's output on its "
                          "stdin; a non-zero status is a bug (e.g. --check 'xz -dc | cmp - input')");
  run_command->add_option("--fair-after", run.fair_after, "Steps of fair(S)'s strategy S per iteration before random");
  run_command->add_option("--stack-size", run.stack_size, "Stack size of each thread, in bytes (at least 8 MiB are given)");
  add_engine_flags(run_command, run.spurious_wakeups, run.spurious_cas_failures, run.suppressions);
  run_command->add_option("--expect-exit", run.expect_exit,
                          "The exit status the program ends with when it has no bug (default: learnt from the "
                          "first iteration that exits)");
  run_command->add_flag("--record-iterations", run.record_iterations,
                        "Put every iteration's index and schedule hash in the JSON summary");
  // Not required() here: run_run says what is missing and how to give it.
  run_command->add_option("command", run.command, "The program and its arguments, after --");

  replay_arguments replay;
  CLI::App* replay_command = app.add_subcommand("replay", "Replay a bug's trace and check that the bug comes back");
  replay_command->add_option("trace-file", replay.trace, "A trace file (JSON or compact), or a pasted heddle:1:... line")
      ->required();
  replay_command->add_option("--program", replay.program, "The test binary, if not the one the trace names");
  replay_command->add_option("--iteration-timeout", replay.iteration_timeout,
                             "A replay that makes no progress for this long is a hang (default: the trace's "
                             "--iteration-timeout, 10s for a hang trace without one; 0: none)");

  report_arguments report;
  CLI::App* report_command =
      app.add_subcommand("report", "Show a trace: its interleaving, an HTML report, a Perfetto trace");
  report_command->add_option("trace-file", report.trace, "A trace file (JSON or compact)")->required();
  report_command->add_option("--html", report.html, "Write a self-contained HTML report to this file");
  report_command->add_option("--perfetto", report.perfetto,
                             "Write Chrome trace-event JSON (Perfetto, chrome://tracing) to this file");

  merge_arguments merge;
  CLI::App* merge_command = app.add_subcommand("merge", "Combine the JSON summaries of the shards of a run into one");
  merge_command->add_option("summaries", merge.inputs, "JSON summaries (heddle test --json-out) of the shards")
      ->required();
  merge_command->add_option("--json-out", merge.json_out, "Write the merged JSON summary to this file");
  merge_command->add_option("--format", merge.format, "Summary format: text, or json on stdout")
      ->check(CLI::IsMember({"text", "json"}));

  if (argc <= 1) {
    std::fputs(app.help().c_str(), stderr);
    return usage_problem;
  }
  if (const std::string first = argv[1]; !first.starts_with("-") && first != "list" && first != "test" && first != "run" &&
      first != "replay" &&
      first != "report" && first != "merge") {
    fmt::print(stderr, "heddle: unknown command '{}' (commands: list, test, run, replay, report, merge; see heddle --help)\n",
               first);
    return usage_problem;
  }
  // An option that takes a value, followed by the "--" that ends the options:
  // CLI11 takes "--" as its value, and `heddle run --check -- ./prog` ran the
  // check '--' after every iteration and reported its failure as the
  // program's bug (exit 1). One line and exit 2 instead.
  const std::vector<CLI::App*> named = app.get_subcommands(
      [&](CLI::App* command) { return command->get_name() == std::string_view(argv[1]); });
  if (!named.empty()) {
    const CLI::App* command = named.front();
    for (int i = 2; i + 1 < argc && std::string_view(argv[i]) != "--"; ++i) {
      const std::string_view argument = argv[i];
      if (!argument.starts_with("-") || argument.find('=') != std::string_view::npos) continue;
      const CLI::Option* option = command->get_option_no_throw(std::string(argument));
      if (option != nullptr && option->get_items_expected_min() > 0 && std::string_view(argv[i + 1]) == "--") {
        fmt::print(stderr, "heddle: option '{}' needs a value, but '--' follows it (see heddle {} --help)\n", argument,
                   command->get_name());
        return usage_problem;
      }
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // CLI11 lists every argument it could not place; the one a user wants to
    // hear about is the option the command does not have.
    for (const CLI::App* command : app.get_subcommands())
      for (const std::string& extra : command->remaining())
        if (extra.size() > 1 && extra.front() == '-' && extra != "--") {
          fmt::print(stderr, "heddle: unknown option '{}' for heddle {} (see heddle {} --help)\n", extra.substr(0, extra.find('=')),
                     command->get_name(), command->get_name());
          return usage_problem;
        }
    fmt::print(stderr, "heddle: {} (see heddle --help)\n", first_line(e.what()));
    return usage_problem;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "heddle: {} (see heddle --help)\n", first_line(e.what()));
    return usage_problem;
  }

  try {
    if (list_command->parsed()) return run_list(list);
    if (test_command->parsed()) return run_test(test);
    if (run_command->parsed()) return run_run(run);
    if (replay_command->parsed()) return run_replay(replay);
    if (report_command->parsed()) return run_report(report);
    if (merge_command->parsed()) return run_merge(merge);
  } catch (const heddle::usage_error& e) {
    fmt::print(stderr, "heddle: {}\n", first_line(e.what()));
    return usage_problem;
  } catch (const std::exception& e) {
    fmt::print(stderr, "heddle: internal error: {}\n", first_line(e.what()));
    return internal_error;
  }
  return usage_problem;
}
