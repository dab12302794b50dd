// See fork_server.hpp. This file owns the run as a whole: the loop over
// iterations (a strategy's learning window, --check-determinism's runs again,
// the time budget), the bug's trace file and report, a replay's comparison
// with its trace, and the summary (text and JSON). What one run is comes from
// run_plan.hpp, one iteration's child and its judging from
// iteration_server.hpp, what a report shows of it from run_report.hpp.
#include "rt/fork_server.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "heddle/explore.hpp"
#include "rt/iteration_server.hpp"
#include "rt/known_libraries.hpp"
#include "rt/output_capture.hpp"
#include "rt/posix_clock.hpp"
#include "rt/run_plan.hpp"
#include "rt/run_report.hpp"
#include "rt/runtime_heap.hpp"
#include "rt/uncontrolled_inputs.hpp"
#include "runner/interrupt.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/overrides.hpp"
#include "runner/report.hpp"
#include "runner/statistics.hpp"
#include "runner/suppressions.hpp"
#include "runner/verdict.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

// In libheddle-rt, not in every binary that carries these sources (weak):
// whether the program is built with heddle's instrumentation.
namespace heddle::rt::tsan {
bool instrumented() noexcept __attribute__((weak));
}

namespace heddle::rt {
namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

constexpr std::size_t output_lines_shown = 20;

// The iteration whose exit status was learnt, as its report would need it.
struct kept_iteration {
  iteration_result result;
  detail::iteration_outcome view;
  std::string output_tail;
  std::uint64_t index = 0;
};

// --check-determinism: the iteration runs twice more, in new children, on
// the schedule it took (a replay of its steps); each must take the same steps
// and end the same way. Returns what differed, with the likely cause.
std::optional<std::string> run_again(run_plan& plan, iteration_server& server, const program_entry& program,
                                     std::uint64_t index, const iteration_result& first, std::uint32_t& inputs) {
  std::unique_ptr<detail::strategy> exploring = std::move(plan.chosen);
  std::optional<std::string> what;
  int run = 2;
  for (; run <= 3 && !what; ++run) {
    auto again = std::make_unique<detail::replay_strategy>(first.steps, exploring->describe());
    detail::replay_strategy& replaying = *again;
    plan.chosen = std::move(again);
    plan.chosen->begin_iteration(index, detail::iteration_seed(plan.opts.seed, index));
    const iteration_result r = server.run(program);
    const auto ending = [](const std::optional<bug>& b) {
      return b ? fmt::format("{} bug at step {} ({})", to_string(b->kind), b->step, b->message) : std::string("no bug");
    };
    if (r.stopped) what = *r.stopped;
    else if (!r.found && replaying.remaining() > 0)
      what = fmt::format("the program finished after {} steps, but the first run took {}", r.steps.size(),
                         first.steps.size());
    else if (first.found.has_value() != r.found.has_value() ||
             (first.found && (first.found->kind != r.found->kind || first.found->step != r.found->step)))
      what = fmt::format("the first run ended with {}, this one with {}", ending(first.found), ending(r.found));
    inputs = first.uncontrolled_inputs | r.uncontrolled_inputs;
  }
  plan.chosen = std::move(exploring);
  if (!what) return std::nullopt;
  return fmt::format("the program is not deterministic: iteration {} ran again (run {} of 3) on the same schedule "
                     "and diverged: {}. {}",
                     index, run - 1, *what, divergence_cause({}, inputs));
}

int explore_program(const program_entry& program, run_plan& plan, bool json_summary) {
  const options& o = plan.opts;
  fork_channel& ch = *map_channel(o.max_steps);
  output_capture output;
  prepare_children(o);
  iteration_server server(plan, ch, output);

  statistics stats;
  std::optional<bug> found;
  std::string trace_file, divergence;
  std::uint32_t divergence_inputs = 0;  // what the diverging run read that no run reproduces
  // Every child's clocks start here (a replay's: where its trace's did).
  (void)current_clock_bases();
  note_uncontrolled_inputs_in(&ch.uncontrolled_inputs);
  const auto started = clock::now();
  const auto deadline = o.time_budget.count() > 0 ? started + o.time_budget : clock::time_point::max();
  std::uint64_t reproduced = 0;
  std::optional<kept_iteration> learnt;  // the iteration the exit status was learnt from
  nlohmann::json schedules = nlohmann::json::array();  // with record_iterations
  // Ctrl-C or SIGTERM stops the run after the iteration in flight, which is
  // not judged: a terminal's Ctrl-C reaches the child too (the whole process
  // group), so its ending says nothing about the program.
  const detail::interrupt_scope interrupts;
  bool interrupted = false;
  for (std::uint64_t n = 0; n < o.iterations; ++n) {
    if (detail::interrupt_scope::requested()) {
      interrupted = true;
      break;
    }
    const std::uint64_t index = plan.replaying != nullptr ? plan.first_iteration : plan.first_iteration + n;
    // A strategy learns within its learning window only, as in heddle's
    // runner (strategy::learning_window): the same seed explores the same
    // schedules here as in a test binary.
    if (const std::uint64_t window = plan.chosen->learning_window();
        plan.replaying == nullptr && n > 0 && window > 1 && index % window == 0)
      plan.chosen = detail::make_strategy(
          o.strategy, {.fair_after = o.fair_after, .weak_memory = o.memory_model == memory_model::rc11});
    plan.chosen->begin_iteration(index, detail::iteration_seed(o.seed, index));
    plan.current_iteration = index;
    iteration_result r = server.run(program);
    if (detail::interrupt_scope::requested()) {
      interrupted = true;
      break;
    }
    plan.chosen->end_iteration({r.steps.size(), r.found.has_value(), r.hit_max_steps, r.weak_execution});
    ++stats.iterations;
    stats.steps_total += r.steps.size();
    if (o.record_iterations) schedules.push_back({index, fmt::format("{:016x}", detail::schedule_hash(r.steps)), r.steps.size()});
    stats.max_steps_hits += r.hit_max_steps ? 1 : 0;
    stats.weak_order_iterations += r.weak_order ? 1 : 0;
    stats.sc_in_run_order_iterations += r.sc_in_run_order ? 1 : 0;
    if (plan.replaying == nullptr && o.check_determinism && !r.stopped) {
      if (auto what = run_again(plan, server, program, index, r, divergence_inputs)) {
        divergence = std::move(*what);
        break;
      }
    }
    if (r.learnt_exit) learnt = kept_iteration{r, outcome_for_report(r, ch), output.tail_section(output_lines_shown), index};
    std::uint64_t bug_index = index;
    const kept_iteration* blamed = nullptr;
    if (r.blames_learnt_exit && learnt) {
      // The report is that of the iteration whose status was learnt.
      const std::uint64_t zero_at = index;
      bug_index = learnt->index;
      blamed = &*learnt;
      r = learnt->result;
      r.found = r.learnt_exit;
      r.found->message += fmt::format(", where iteration {} exited with status 0 (a status a schedule changes is a "
                                      "bug; --expect-exit N sets the usual one)",
                                      zero_at);
      plan.opts.expect_exit = 0;  // what its trace expects, so the replay finds it again
    }
    if (r.found) {
      if (const std::string note = detail::spurious_note(r.steps); !note.empty()) r.found->message += " (" + note + ")";
    }
    if (plan.replaying != nullptr) {
      divergence_inputs = r.uncontrolled_inputs;
      if (r.stopped) divergence = *r.stopped;
      else if (!r.found && plan.replaying->remaining() > 0)
        divergence = fmt::format("the program finished after {} steps, but the trace has {} more", r.steps.size(),
                                 plan.replaying->remaining());
      // Kind and step, not the message: a data race names addresses, which
      // move between processes (ASLR).
      else if (plan.expected && (!r.found || r.found->kind != plan.expected->kind || r.found->step != plan.expected->step))
        divergence = fmt::format("the trace recorded {} bug at step {} ({}), but the replay ended with {}",
                                 to_string(plan.expected->kind), plan.expected->step, plan.expected->message,
                                 r.found ? fmt::format("{} bug at step {} ({})", to_string(r.found->kind),
                                                       r.found->step, r.found->message)
                                         : std::string("no bug"));
      if (divergence.empty() && r.found) ++reproduced;
      // The first replay reports; the repeats only count.
      if (r.found && divergence.empty() && reproduced > 1) continue;
    }
    if (r.found && divergence.empty()) {
      found = r.found;
      trace t;
      t.header = header_of(plan, bug_index);
      t.steps = r.steps;
      t.found = r.found;
      if (plan.replaying != nullptr) trace_file = o.replay;
      else if (!o.out.empty()) {
        std::string dir;
        for (char c : plan.test) dir += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
        nlohmann::json written = nlohmann::json::parse(to_json(t));
        written["options"]["address_randomization"] = address_randomization();
        const clock_bases clocks = current_clock_bases();
        written["options"]["clock_realtime_ns"] = clocks.realtime_ns;
        written["options"]["clock_monotonic_ns"] = clocks.monotonic_ns;
        if (!plan.check.empty()) written["options"]["check"] = plan.check;
        trace_file = write_bug_file(fs::path(o.out) / dir, written.dump(1) + "\n");
      }
      detail::report_context ctx{plan.test, plan.program_path, trace_file, bug_index, stats.iterations,
                                 plan.replaying != nullptr};
      if (!trace_file.empty()) {
        ctx.replay = "heddle replay " + detail::shell_word(trace_file);
        ctx.debug = gdb_command(plan, fs::absolute(trace_file).string());
      }
      detail::iteration_outcome view = blamed != nullptr ? blamed->view : outcome_for_report(r, ch);
      view.found = r.found;
      std::string report = detail::format_report(*found, t, view, ctx);
      report += blamed != nullptr ? blamed->output_tail : output.tail_section(output_lines_shown);
      if (o.print_report) std::fputs(report.c_str(), stderr);
      if (plan.replaying != nullptr) continue;
      break;
    }
    if (!divergence.empty()) break;
    if (plan.replaying == nullptr) {
      if (const std::string error = plan.chosen->search_error(); !error.empty()) {
        divergence = fmt::format("{} stopped: {}", plan.chosen->describe(), error);
        break;
      }
      if (plan.chosen->exhausted()) {
        stats.exhausted = true;
        break;
      }
    }
    if (clock::now() >= deadline) break;
  }
  stats.elapsed = clock::now() - started;
  stats.max_steps = o.max_steps;
  stats.schedules = plan.chosen->schedules_explored();
  stats.schedules_are_executions = plan.chosen->counts_executions();
  stats.memory_model = o.memory_model;
  stats.bounded_choices = plan.chosen->bounded_choices();
  stats.held_wait_iterations = plan.chosen->held_wait_iterations();
  const double rate = stats.iterations_per_second();
  std::vector<std::string> caveats = plan.replaying == nullptr ? stats.caveats() : std::vector<std::string>{};
  // A program not built with heddle-cc/heddle-c++ is scheduled at its
  // synchronization calls only: dfs and dpor exhaust those, and said
  // "verified" of an uninstrumented TBB program whose queue and hash map
  // synchronize with atomics heddle never saw (dpor: "explored all 1
  // schedule (verified)").
  const bool synchronization_only = tsan::instrumented != nullptr && !tsan::instrumented();
  // An instrumented program on a library whose atomics are not (GLib, libck,
  // libgomp, ...: known_libraries.cpp): the search saw neither those accesses
  // nor what they depend on, so dfs and dpor exhausting the schedules proves
  // nothing about them (dpor said "explored all 6 schedules (verified)" of a
  // Concurrency Kit ring whose slots it never saw; the audit, 2026-11-29).
  const known_library hidden = synchronization_only ? known_library{} : invisible_synchronization();
  const bool verified = detail::verified(stats) && !synchronization_only && hidden.path == nullptr;
  std::string pass = detail::pass_verdict(stats);
  if (hidden.path != nullptr && detail::verified(stats)) {
    const std::uint64_t n = stats.schedules > 0 ? stats.schedules : stats.iterations;
    pass = fmt::format("passed: explored all {} {} (not verified: {} orders its threads with atomics that are not "
                       "instrumented, which the search could not see)",
                       n, n == 1 ? "schedule" : "schedules", hidden.what);
  }
  if (synchronization_only && detail::verified(stats)) {
    const std::uint64_t n = stats.schedules > 0 ? stats.schedules : stats.iterations;
    pass = fmt::format("passed: explored all {} {} of its synchronization calls (not verified: its memory accesses "
                       "are not instrumented)",
                       n, n == 1 ? "schedule" : "schedules");
    if (plan.replaying == nullptr)
      caveats.push_back(
          "the program is not built with heddle-cc/heddle-c++: the schedules explored order its pthread, futex and "
          "signal calls, not its memory accesses or atomics, so no interleaving of those was checked (build it "
          "with heddle-cc/heddle-c++ for that)");
  }
  if (!plan.races_off.empty() && plan.replaying == nullptr) caveats.push_back(plan.races_off);
  if (!divergence.empty() && plan.replaying != nullptr)
    divergence = fmt::format("replay diverged: {}. {}", divergence, divergence_cause(o.replay, divergence_inputs));
  if (!divergence.empty()) std::fprintf(stderr, "heddle: %s\n", divergence.c_str());
  const std::string early_note = interrupted ? fmt::format("; {}", detail::stopped_early) : std::string{};
  if (!found && divergence.empty() && o.print_report) {
    if (caveats.empty() && !stats.exhausted) {
      std::fprintf(stderr, "heddle: no bug found in %llu iteration(s) of %s (strategy %s, %.0f iterations/s%s)\n",
                   static_cast<unsigned long long>(stats.iterations), plan.program_path.c_str(),
                   plan.chosen->describe().c_str(), rate, early_note.c_str());
    } else {
      // A qualified pass (docs/running.md): what it covers, then what it did not check.
      std::fprintf(stderr, "heddle: %s (%s, strategy %s, %.0f iterations/s%s)\n",
                   pass.c_str(), plan.program_path.c_str(), plan.chosen->describe().c_str(),
                   rate, early_note.c_str());
      for (const std::string& c : caveats) std::fprintf(stderr, "heddle: not checked: %s\n", c.c_str());
    }
  }
  // What the run took as the program's usual exit status, when it is not 0.
  const std::string exit_note =
      o.expect_exit > 0 && plan.replaying == nullptr
          ? plan.exit_learnt_at ? fmt::format("exit status {} is the program's usual one (learnt from iteration {}; "
                                              "--expect-exit N sets it)",
                                              o.expect_exit, *plan.exit_learnt_at)
                                : fmt::format("exit status {} is the program's usual one (--expect-exit)", o.expect_exit)
          : std::string{};
  if (!exit_note.empty() && o.print_report) std::fprintf(stderr, "heddle: %s\n", exit_note.c_str());
  const detail::suppression_list& suppressions = detail::active_suppressions();
  std::vector<std::uint64_t> suppressed(suppressions.entries.size());
  for (std::size_t i = 0; i < suppressed.size(); ++i) suppressed[i] = detail::suppressed_count(i);
  const std::string suppressed_text = detail::describe_suppressed(suppressions, suppressed);
  if (!suppressed_text.empty() && o.print_report)
    std::fprintf(stderr, "heddle: %s by %s\n", suppressed_text.c_str(), suppressions.file.c_str());
  if (json_summary) {
    nlohmann::json j = {{"program", plan.program_path},
                        {"iterations", stats.iterations},
                        {"iterations_per_second", rate},
                        {"exhausted", stats.exhausted},
                        {"max_steps", stats.max_steps},
                        {"max_steps_hits", stats.max_steps_hits},
                        {"weak_order_iterations", stats.weak_order_iterations},
                        {"sc_in_run_order_iterations", stats.sc_in_run_order_iterations},
                        {"bounded_choices", stats.bounded_choices},
                        {"held_wait_iterations", stats.held_wait_iterations},
                        {"caveats", caveats},
                        {"interrupted", interrupted},
                        {"status", found ? "bug" : divergence.empty() ? "passed" : "diverged"}};
    j["verified"] = !found && divergence.empty() && verified;
    if (!found && divergence.empty())
      j["verdict"] = interrupted ? fmt::format("{} ({})", pass, detail::stopped_early) : pass;
    if (found) {
      j["bug"] = {{"kind", to_string(found->kind)}, {"message", found->message}, {"operation", found->operation},
                  {"step", found->step}};
      j["trace_file"] = trace_file;
    }
    if (!divergence.empty()) j["message"] = divergence;
    if (o.exit_code_is_bug && o.expect_exit >= 0) {
      j["expected_exit"] = {{"status", o.expect_exit}, {"learnt", plan.exit_learnt_at.has_value()}};
      if (plan.exit_learnt_at) j["expected_exit"]["iteration"] = *plan.exit_learnt_at;
    }
    if (!suppressions.entries.empty()) {
      nlohmann::json by = nlohmann::json::array();
      std::uint64_t total = 0;
      for (std::size_t i = 0; i < suppressed.size(); ++i) {
        by.push_back({{"suppression", suppressions.entries[i].type + ":" + suppressions.entries[i].pattern},
                      {"line", suppressions.entries[i].line},
                      {"count", suppressed[i]}});
        total += suppressed[i];
      }
      j["suppressed"] = {{"file", suppressions.file}, {"races", total}, {"by_suppression", std::move(by)}};
    }
    if (o.record_iterations) j["schedules"] = std::move(schedules);
    if (plan.replaying != nullptr) {
      j["replays"] = stats.iterations;
      j["reproduced"] = reproduced;
    }
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
  }
  if (!divergence.empty()) return 2;
  return found ? 1 : 0;
}
}  // namespace

int run_program(const program_entry& program, const char* mode) {
  // The run is its starter's (heddle run or replay, a debugger): when that
  // process dies, even of SIGKILL, the server stops as on a SIGTERM (after the
  // iteration in flight, with its summary) instead of running on alone.
  const pid_t starter = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != starter) std::raise(SIGTERM);  // it died before prctl
  const bool direct = std::string_view(mode) == "direct";
  const char* format = std::getenv("HEDDLE_RUN_FORMAT");
  const bool json_summary = format != nullptr && std::string_view(format) == "json";
  ::unsetenv("HEDDLE_RUN");
  // From here on this process allocates from a heap of its own, so that the
  // program's heap is the same in every child and in a replay.
  runtime_heap::enter_server();
  try {
    run_plan plan = make_plan(program);
    if (direct) {
      fork_channel& ch = *map_channel(plan.opts.max_steps);
      plan.chosen->begin_iteration(plan.first_iteration, detail::iteration_seed(plan.opts.seed, plan.first_iteration));
      runtime_heap::leave_server();
      run_iteration(program, plan.opts, *plan.chosen, ch);
    }
    return explore_program(program, plan, json_summary);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "heddle: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heddle: internal error: %s\n", e.what());
    return 3;
  }
}

}  // namespace heddle::rt
