// See fork_server.hpp.
#include "rt/fork_server.hpp"

#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "heddle/explore.hpp"
#include "rt/loader_fini.hpp"
#include "rt/output_capture.hpp"
#include "rt/output_check.hpp"
#include "rt/posix_clock.hpp"
#include "rt/runtime_heap.hpp"
#include "rt/uncontrolled_inputs.hpp"
#include "rt/symbolizer.hpp"
#include "rt/watchdog.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/overrides.hpp"
#include "runner/replay_setup.hpp"
#include "runner/report.hpp"
#include "runner/statistics.hpp"
#include "runner/verdict.hpp"
#include "runner/suppressions.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::rt {
namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

constexpr std::size_t output_lines_shown = 20;

// What one run is: the options, the strategy, the trace header's constants.
struct run_plan {
  options opts;
  std::unique_ptr<detail::strategy> chosen;
  detail::replay_strategy* replaying = nullptr;
  std::uint64_t first_iteration = 0;
  std::optional<bug> expected;
  std::string program_path;
  std::vector<std::string> arguments;
  std::string test;
  // heddle run --check: judges each iteration's output (output_check.hpp).
  // A replay takes it from its trace.
  std::string check;
  // The iteration running, and the one whose exit status became the
  // expected one (opts.expect_exit), when it was learnt rather than given.
  std::uint64_t current_iteration = 0;
  std::optional<std::uint64_t> exit_learnt_at;
};

std::string self_path(const char* fallback) {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(fallback) : p.string();
}

// What a push-button trace records beyond the trace header, under its
// "options": the --check command, and whether the program ran with address
// randomization (heddle run turns it off, so that a program that hashes or
// orders by address replays; docs/pushbutton.md).
struct run_options {
  std::string check;
  std::string address_randomization;  // "off", "on"; empty in traces written before it was recorded
  std::optional<clock_bases> clocks;  // where the program's clocks started (posix_clock.hpp)
};

run_options run_options_of(const std::string& trace_file) {
  run_options r;
  std::ifstream in(trace_file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("options") || !j["options"].is_object()) return r;  // a compact trace
  const nlohmann::json& o = j["options"];
  if (o.contains("check") && o["check"].is_string()) r.check = o["check"];
  if (o.contains("address_randomization") && o["address_randomization"].is_string())
    r.address_randomization = o["address_randomization"];
  if (o.contains("clock_realtime_ns") && o["clock_realtime_ns"].is_number_integer() &&
      o.contains("clock_monotonic_ns") && o["clock_monotonic_ns"].is_number_integer())
    r.clocks = clock_bases{o["clock_realtime_ns"].get<std::int64_t>(), o["clock_monotonic_ns"].get<std::int64_t>()};
  return r;
}

// This process's: the fork server's children inherit it.
std::string address_randomization() {
  const int persona = ::personality(0xffffffff);
  return persona != -1 && (persona & ADDR_NO_RANDOMIZE) != 0 ? "off" : "on";
}

// The likely cause of a divergence, as far as the fork server can see it:
// what the program read that no run reproduces, addresses that moved, else
// what heddle does not control. `trace_file`: the trace a replay follows
// (empty for --check-determinism, whose runs share one address layout).
std::string divergence_cause(const std::string& trace_file, std::uint32_t inputs) {
  const std::string read = describe_uncontrolled_inputs(inputs);
  if (!read.empty()) return "Likely cause: " + read;
  const std::string recorded = trace_file.empty() ? "off" : run_options_of(trace_file).address_randomization;
  if (recorded == "on")
    return "Likely cause: the trace was recorded with address randomization on, and the program depends on "
           "addresses (it hashes or orders by pointer); record it again with heddle run, which turns it off";
  if (address_randomization() == "on")
    return "Likely cause: address randomization is on in this run (it could not be turned off), and the program "
           "may depend on addresses";
  return "Likely cause: the program depends on something heddle does not control (input, files, an uninstrumented "
         "spin on memory, /dev/urandom, a static left over from before main, the blocks its threads allocate when "
         "the trace was recorded on the other backend)";
}

run_plan make_plan(const program_entry& program) {
  run_plan plan;
  plan.opts = detail::with_overrides({});
  plan.program_path = self_path(program.argv[0]);
  for (int i = 1; i < program.argc; ++i) plan.arguments.emplace_back(program.argv[i]);
  plan.test = "run:" + fs::path(plan.program_path).filename().string();
  options& o = plan.opts;
  // The OS-thread backend unless HEDDLE_BACKEND (heddle run --backend) asks
  // for fibers; a replay runs on the backend its trace was recorded on.
  const bool backend_given = detail::backend_requested(o);
  if (!backend_given) o.backend = "threads";
  // A push-button run always has a watchdog: 10 s unless HEDDLE_ITERATION_TIMEOUT says otherwise (0: none).
  if (std::getenv("HEDDLE_ITERATION_TIMEOUT") == nullptr) o.iteration_timeout = std::chrono::seconds(10);
  if (const char* check = std::getenv("HEDDLE_CHECK"); check != nullptr) plan.check = check;
  if (!o.replay.empty()) {
    trace recorded = detail::load_replay(o, plan.test);
    const run_options recorded_run = run_options_of(o.replay);
    plan.check = recorded_run.check;
    // The replay's clocks start where the run's did.
    if (recorded_run.clocks) set_clock_bases(*recorded_run.clocks);
    if (!backend_given) o.backend = recorded.header.backend;
    // HEDDLE_REPLAY_REPEAT=N replays the trace N times, each in a new child
    // (the harness's check that a bug replays every time).
    o.iterations = 1;
    if (const char* repeat = std::getenv("HEDDLE_REPLAY_REPEAT"); repeat != nullptr)
      o.iterations = std::max<std::uint64_t>(1, detail::parse_unsigned(repeat, "HEDDLE_REPLAY_REPEAT"));
    plan.first_iteration = recorded.header.iteration;
    // A trace from before the expected status was recorded: 0 was expected.
    if (o.expect_exit < 0 && recorded.found && recorded.found->kind == bug_kind::exit_code) o.expect_exit = 0;
    plan.expected = recorded.found;
    auto r = std::make_unique<detail::replay_strategy>(std::move(recorded.steps), recorded.header.strategy);
    plan.replaying = r.get();
    plan.chosen = std::move(r);
  } else {
    plan.chosen = detail::make_strategy(o.strategy, {.fair_after = o.fair_after});
    if (o.memory_model == memory_model::rc11 && plan.chosen->describe().find("dpor") != std::string::npos)
      throw usage_error("dpor explores sequentially consistent interleavings only; use dfs for --memory-model rc11");
  }
  detail::set_active_suppressions(o);
  return plan;
}

trace_header header_of(const run_plan& plan, std::uint64_t iteration) {
  trace_header h = detail::make_header(plan.opts, {plan.test, plan.program_path}, plan.chosen->describe(), iteration);
  h.arguments = plan.arguments;
  return h;
}

// Writes `text` to the first free <dir>/bug-N.json; returns its path.
std::string write_bug_file(const fs::path& dir, const std::string& text) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("cannot create output directory '{}': {}", dir.string(), ec.message()));
  for (unsigned n = 1;; ++n) {
    const fs::path target = dir / fmt::format("bug-{}.json", n);
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw usage_error(fmt::format("cannot write '{}': {}", target.string(), std::strerror(errno)));
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) throw usage_error(fmt::format("cannot write '{}'", target.string()));
    return target.string();
  }
}

// An operation's name: its own (main, pthread_setname_np), else its
// thread's start routine. The child's code is this process's (a fork), so
// its addresses symbolize here, and only when a report needs them.
std::string name_of(const fork_channel& ch, operation_id op) {
  if (op == 0 || op >= max_operations || op >= ch.operations_mirrored) return {};
  const operation_mirror& m = ch.operations[op];
  if (m.name[0] != '\0') return m.name;
  if (m.start_pc == 0) return {};
  // std::thread's start routine is libstdc++'s trampoline: no name is better.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(m.start_pc), &info) != 0 && info.dli_fname != nullptr &&
      is_runtime_object(info.dli_fname))
    return {};
  return symbolize(m.start_pc + 1).function;
}

std::string describe_op(const fork_channel& ch, operation_id op) {
  // No operation runs: the program's exit path (atexit handlers and static
  // destructors, which exit() runs after main returns), or heddle's own code.
  if (op == 0) return "the exit path after main returned";
  const std::string name = name_of(ch, op);
  return !name.empty() ? fmt::format("operation {} ({})", op, name) : fmt::format("operation {}", op);
}

const char* signal_text(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic error)";
    case SIGABRT: return "SIGABRT (abort)";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
  }
  return nullptr;
}

// What one child left behind.
struct iteration_result {
  std::optional<bug> found;
  std::vector<trace_step> steps;  // every decision the parent took
  std::vector<operation_id> step_operations;  // who took each step
  bool hit_max_steps = false;
  bool weak_order = false;
  std::optional<std::string> stopped;
  std::uint32_t uncontrolled_inputs = 0;  // rt::uncontrolled_input bits
  // The exit status became the usual one here (see finish()), as a bug
  // should a later iteration exit 0; and such a later iteration.
  std::optional<bug> learnt_exit;
  bool blames_learnt_exit = false;
};

// The iteration whose exit status was learnt, as its report would need it.
struct kept_iteration {
  iteration_result result;
  detail::iteration_outcome view;
  std::string output_tail;
  std::uint64_t index = 0;
};

class iteration_server {
 public:
  iteration_server(run_plan& plan, fork_channel& ch, output_capture& output)
      : plan_(plan), ch_(ch), output_(output), log_event_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (log_event_ < 0) throw std::runtime_error(fmt::format("cannot create an eventfd: {}", std::strerror(errno)));
  }
  ~iteration_server() { ::close(log_event_); }
  iteration_server(const iteration_server&) = delete;
  iteration_server& operator=(const iteration_server&) = delete;

  iteration_result run(const program_entry& program) {
    reset_channel();
    output_.clear();
    std::fflush(nullptr);
    const pid_t server = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
    if (pid == 0) {
      // The child dies with the server. Otherwise a child blocked for good (in
      // a call the runtime does not model, or waiting for a log hand-off) would
      // stay behind when the server is killed. The check after prctl covers a
      // server that died before it.
      // The program's blocks, and heddle's, are the C library's again
      // (runtime_heap.hpp), from the heap every child starts from.
      runtime_heap::leave_server();
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != server) ::_exit(1);
      skip_runtime_fini();
      output_.redirect_here();
      auto logging = make_logging_strategy(*plan_.chosen, ch_, log_event_);
      run_iteration(program, plan_.opts, *logging, ch_);
    }
    result_ = {};
    serve(pid);
    return std::move(result_);
  }

 private:
  void reset_channel() {
    ch_.turn_word.store(static_cast<std::uint32_t>(turn::child), std::memory_order_relaxed);
    ch_.progress.store(0, std::memory_order_relaxed);
    ch_.current = 0;
    ch_.decisions_logged.store(0, std::memory_order_relaxed);
    ch_.enabled_used = 0;
    ch_.end = ending::running;
    ch_.exit_status = 0;
    ch_.hit_max_steps = 0;
    ch_.weak_order = 0;
    ch_.stopped[0] = '\0';
    ch_.found.present = 0;
    ch_.crash = {};
    ch_.uncontrolled_inputs.store(0, std::memory_order_relaxed);
    ch_.steps_mirrored = 0;
    ch_.operations_mirrored = 0;
    ch_.objects_mirrored = 0;
    consumed_ = 0;
    last_chosen_ = 0;
  }

  // Feeds the decisions the child logged since the last call to this
  // process's strategy, which must answer as the child's copy did; records
  // the steps they took.
  void take_log() {
    const std::uint64_t logged = ch_.decisions_logged.load(std::memory_order_acquire);
    for (; consumed_ < logged; ++consumed_) {
      const decision_record& d = ch_.decisions[consumed_];
      const detail::pending_operation* enabled = ch_.enabled_pool + d.enabled_first;
      const detail::decision_context ctx{std::span<const detail::pending_operation>(enabled, d.enabled_count),
                                         d.current, d.step, static_cast<std::size_t>(d.operation_count),
                                         d.user_state_hash, d.current_finished != 0};
      std::uint64_t answer = 0;
      if (d.is_value == 0) {
        answer = plan_.chosen->next_operation(ctx);
        if (answer < d.enabled_count) {
          const detail::pending_operation& p = enabled[answer];
          result_.steps.push_back({step_kind::schedule, p.point, p.object, p.id});
          result_.step_operations.push_back(p.id);
          last_chosen_ = p.id;
        }
      } else {
        const detail::choice& c = d.value_choice;
        answer = plan_.chosen->next_value(ctx, c);
        if (answer < c.bound) {
          result_.steps.push_back({c.kind, c.point, c.object, answer});
          result_.step_operations.push_back(d.current);
        }
      }
      if (answer != d.answer)
        throw std::runtime_error(fmt::format(
            "strategy {} answered {} at step {} in the fork server but {} in its child: a strategy must depend only "
            "on its seed, its own state and what it is told",
            plan_.chosen->describe(), answer, d.step, d.answer));
    }
  }

  // The child asked for a hand-off but is gone (or killed): the next child
  // must not find the request.
  void forget_hand_off() {
    std::uint64_t count = 0;
    (void)!::read(log_event_, &count, sizeof count);
  }

  // The child's log is full: take it, empty it, let the child go on.
  void hand_back_log() {
    forget_hand_off();
    if (ch_.turn_word.load(std::memory_order_acquire) != static_cast<std::uint32_t>(turn::parent)) return;
    take_log();
    consumed_ = 0;
    ch_.decisions_logged.store(0, std::memory_order_relaxed);
    ch_.enabled_used = 0;
    ch_.turn_word.store(static_cast<std::uint32_t>(turn::child), std::memory_order_release);
    shared_wake(ch_.turn_word);
  }

  // Sleeps until the child ends, taking its log when it is full; kills it
  // when it takes no decision for the iteration timeout.
  void serve(pid_t pid) {
    const auto timeout = plan_.opts.iteration_timeout;
    const auto limit = timeout.count() > 0 ? timeout : std::chrono::milliseconds(std::numeric_limits<int>::max());
    const int child = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    auto last_progress = clock::now();
    std::uint64_t seen = 0;
    int status = 0;
    for (;;) {
      const auto waited = clock::now() - last_progress;
      if (waited >= limit) {
        if (child >= 0) ::close(child);
        hang(pid);
        return;
      }
      // Without a pidfd (Linux before 5.3), a short slice and waitpid.
      const auto slice = std::min<clock::duration>(
          limit - waited, child >= 0 ? clock::duration(std::chrono::milliseconds(100)) : std::chrono::milliseconds(1));
      pollfd watched[2] = {{log_event_, POLLIN, 0}, {child, POLLIN, 0}};
      const int ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count());
      (void)::poll(watched, child >= 0 ? 2 : 1, ms);
      if ((watched[1].revents & POLLIN) != 0 || (child < 0 && ::waitpid(pid, &status, WNOHANG) == pid)) {
        if (child >= 0) {
          ::close(child);
          ::waitpid(pid, &status, 0);
        }
        if ((watched[0].revents & POLLIN) != 0) forget_hand_off();
        take_log();
        finish(status);
        return;
      }
      if ((watched[0].revents & POLLIN) != 0) {
        try {
          hand_back_log();
        } catch (...) {
          // The strategies disagreed: the child would wait for its log forever.
          ::kill(pid, SIGKILL);
          ::waitpid(pid, &status, 0);
          if (child >= 0) ::close(child);
          throw;
        }
      }
      if (const std::uint64_t now = ch_.progress.load(std::memory_order_relaxed); now != seen) {
        seen = now;
        last_progress = clock::now();
      }
    }
  }

  void hang(pid_t pid) {
    take_log();  // who ran last (the child is stuck: nothing more comes before the kill)
    const operation_id running = last_chosen_ != 0 ? last_chosen_ : ch_.current;
    const std::string threads = describe_threads(pid, ch_, running, describe_op(ch_, running));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    forget_hand_off();
    take_log();
    bug b;
    b.kind = bug_kind::hang;
    // Without the limit's value: a replay under another limit reports the same bug.
    b.message = fmt::format("the iteration made no progress within --iteration-timeout: {}", threads);
    set_operation(b, running);
    result_.found = std::move(b);
  }

  void set_operation(bug& b, operation_id op) const {
    b.operation = op;
    b.operation_name = name_of(ch_, op);
    b.step = result_.steps.size();
    if (op != 0 && op < ch_.operations_mirrored && ch_.operations[op].where.line() != 0) {
      const std::source_location& w = ch_.operations[op].where;
      b.where = {w.file_name(), w.line(), w.function_name()};
    }
  }

  void finish(int status) {
    result_.hit_max_steps = ch_.hit_max_steps != 0;
    result_.uncontrolled_inputs = ch_.uncontrolled_inputs.load(std::memory_order_relaxed);
    result_.weak_order = ch_.weak_order != 0;
    if (ch_.stopped[0] != '\0') result_.stopped = std::string(ch_.stopped);
    if (ch_.end == ending::ended && ch_.found.present) {
      const bug_record& r = ch_.found;
      bug b;
      b.kind = r.kind;
      b.message = r.message;
      b.operation = r.operation;
      b.operation_name = r.operation_name[0] != '\0' ? std::string(r.operation_name) : name_of(ch_, r.operation);
      b.where = {r.file, r.line, r.function};
      b.step = r.step;
      result_.found = std::move(b);
      return;
    }
    if (WIFSIGNALED(status)) {
      const int signal = WTERMSIG(status);
      const operation_id op = ch_.crash.signal != 0 ? ch_.crash.operation : last_chosen_;
      bug b;
      const char* text = signal_text(signal);
      const std::string name = text != nullptr ? text : fmt::format("signal {}", signal);
      if (ch_.crash.stack_overflow) {
        b.kind = bug_kind::stack_overflow;
        b.message = fmt::format("stack overflow in {}", describe_op(ch_, op));
      } else if (signal == SIGABRT) {
        b.kind = bug_kind::assertion;
        const std::string said = output_.last_line_with("Assertion");
        b.message = fmt::format("the program aborted (SIGABRT) in {}{}{}", describe_op(ch_, op),
                                said.empty() ? "" : ": ", said);
      } else {
        b.kind = bug_kind::crash;
        b.message = fmt::format("{} in {}", name, describe_op(ch_, op));
      }
      set_operation(b, op);
      result_.found = std::move(b);
      return;
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    // The engine ended the iteration (max steps): the child's status is its own.
    if (plan_.opts.exit_code_is_bug && ch_.end != ending::ended) {
      // The program's usual status is what its first iteration that exits
      // ends with, unless --expect-exit gives it: a program that always exits
      // 6, or a C `void main()` whose status is whatever was in a register,
      // has no bug for that. The plan keeps it, so each trace's header
      // records it.
      if (plan_.opts.expect_exit < 0) {
        plan_.opts.expect_exit = code;
        plan_.exit_learnt_at = plan_.current_iteration;
        bug b;  // kept, in case a later iteration shows that this status was the bug
        b.kind = bug_kind::exit_code;
        b.message = ch_.end == ending::exiting ? fmt::format("the program exited with status {}", code)
                                               : fmt::format("the program ended with status {} without returning "
                                                             "from main or calling exit()", code);
        set_operation(b, ch_.end == ending::exiting ? ch_.current : last_chosen_);
        result_.learnt_exit = std::move(b);
      } else if (code == 0 && plan_.exit_learnt_at && plan_.opts.expect_exit != 0) {
        // The learnt status was not 0, and this iteration exits 0: the
        // learnt one is taken as the bug (the schedule changed the status,
        // and 0 is what a program ends with when all went well).
        // explore_program reports that iteration, whose trace it kept.
        result_.blames_learnt_exit = true;
        return;
      } else if (code != plan_.opts.expect_exit) {
        bug b;
        b.kind = bug_kind::exit_code;
        const std::string usual =
            plan_.exit_learnt_at
                ? fmt::format("the status iteration {} exited with, taken as the program's usual one; "
                              "--expect-exit N sets it", *plan_.exit_learnt_at)
                : std::string("--expect-exit");
        b.message = ch_.end == ending::exiting
                        ? fmt::format("the program exited with status {}, not {} ({})", code,
                                      plan_.opts.expect_exit, usual)
                        : fmt::format("the program ended with status {}, not {}, without returning from main or "
                                      "calling exit() ({})", code, plan_.opts.expect_exit, usual);
        set_operation(b, ch_.end == ending::exiting ? ch_.current : last_chosen_);
        result_.found = std::move(b);
        return;
      }
    }
    if (plan_.check.empty()) return;
    if (const auto failed = failed_output_check(plan_.check, output_)) {
      bug b;
      b.kind = bug_kind::assertion;
      b.message = fmt::format("the output check failed: '{}' {}", plan_.check, *failed);
      set_operation(b, ch_.end == ending::exiting ? ch_.current : last_chosen_);
      result_.found = std::move(b);
    }
  }

  run_plan& plan_;
  fork_channel& ch_;
  output_capture& output_;
  int log_event_;  // the child signals a full log here
  iteration_result result_;
  std::uint64_t consumed_ = 0;  // decisions of the log fed to the strategy
  operation_id last_chosen_ = 0;
};

// The report's view of the iteration: mirrored steps with their operations
// and source locations, names, objects.
detail::iteration_outcome outcome_for_report(const iteration_result& r, const fork_channel& ch) {
  detail::iteration_outcome o;
  o.found = r.found;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    if (i < ch.steps_mirrored) {
      detail::step_record record = const_cast<fork_channel&>(ch).steps()[i];
      record.step = r.steps[i];
      o.steps.push_back(record);
    } else {
      o.steps.push_back({r.steps[i], r.step_operations[i], {}});
    }
  }
  operation_id ops = 1;
  for (const auto& s : o.steps) ops = std::max<operation_id>(ops, s.operation + 1);
  ops = std::max<operation_id>(ops, ch.operations_mirrored);
  for (operation_id id = 1; id < ops && id < max_operations; ++id) o.operation_names.push_back(name_of(ch, id));
  // A thread without a name of its own or a start routine in the program
  // (std::thread starts in libstdc++): the user function its first located
  // step is in.
  for (std::size_t i = 0; i < o.operation_names.size(); ++i) {
    if (!o.operation_names[i].empty()) continue;
    for (const detail::step_record& s : o.steps) {
      if (s.operation != i + 1 || s.pc == 0 || is_runtime_code(s.pc)) continue;
      const source_position p = symbolize(s.pc);
      if (!p.known() || is_library_file(p.file) || p.function.empty()) continue;
      o.operation_names[i] = p.function;
      break;
    }
  }
  o.objects.resize(std::max<object_id>(ch.objects_mirrored, 1));
  for (object_id id = 1; id < ch.objects_mirrored; ++id) {
    o.objects[id].kind = ch.objects[id].kind;
    o.objects[id].owner = ch.objects[id].owner;
  }
  return o;
}

std::string gdb_command(const run_plan& plan, const std::string& trace_file) {
  std::string command = "gdb";
  const auto set = [&](const std::string& assignment) {
    command += " -ex " + detail::shell_word("set environment " + assignment);
  };
  set("HEDDLE_RUN=direct");
  set("HEDDLE_REPLAY=" + trace_file);
  if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && *preload != '\0')
    set(std::string("LD_PRELOAD=") + preload);
  command += " --args " + detail::shell_word(plan.program_path);
  for (const std::string& a : plan.arguments) command += " " + detail::shell_word(a);
  return command;
}

fork_channel* map_channel(std::uint64_t max_steps) {
  const std::size_t size = fork_channel::size_for(max_steps);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(fmt::format("cannot map the fork channel: {}", std::strerror(errno)));
  auto* ch = static_cast<fork_channel*>(p);
  ch->step_capacity = max_steps + 2;
  return ch;
}

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
  for (std::uint64_t n = 0; n < o.iterations; ++n) {
    const std::uint64_t index = plan.replaying != nullptr ? plan.first_iteration : plan.first_iteration + n;
    // A strategy learns within its learning window only, as in heddle's
    // runner (strategy::learning_window): the same seed explores the same
    // schedules here as in a test binary.
    if (const std::uint64_t window = plan.chosen->learning_window();
        plan.replaying == nullptr && n > 0 && window > 1 && index % window == 0)
      plan.chosen = detail::make_strategy(o.strategy, {.fair_after = o.fair_after});
    plan.chosen->begin_iteration(index, detail::iteration_seed(o.seed, index));
    plan.current_iteration = index;
    iteration_result r = server.run(program);
    plan.chosen->end_iteration({r.steps.size(), r.found.has_value(), r.hit_max_steps});
    ++stats.iterations;
    stats.steps_total += r.steps.size();
    if (o.record_iterations) schedules.push_back({index, fmt::format("{:016x}", detail::schedule_hash(r.steps)), r.steps.size()});
    stats.max_steps_hits += r.hit_max_steps ? 1 : 0;
    stats.weak_order_iterations += r.weak_order ? 1 : 0;
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
  stats.bounded_choices = plan.chosen->bounded_choices();
  const double rate = stats.iterations_per_second();
  const std::vector<std::string> caveats = plan.replaying == nullptr ? stats.caveats() : std::vector<std::string>{};
  if (!divergence.empty() && plan.replaying != nullptr)
    divergence = fmt::format("replay diverged: {}. {}", divergence, divergence_cause(o.replay, divergence_inputs));
  if (!divergence.empty()) std::fprintf(stderr, "heddle: %s\n", divergence.c_str());
  if (!found && divergence.empty() && o.print_report) {
    if (caveats.empty() && !stats.exhausted) {
      std::fprintf(stderr, "heddle: no bug found in %llu iteration(s) of %s (strategy %s, %.0f iterations/s)\n",
                   static_cast<unsigned long long>(stats.iterations), plan.program_path.c_str(),
                   plan.chosen->describe().c_str(), rate);
    } else {
      // A qualified pass (docs/running.md): what it covers, then what it did not check.
      std::fprintf(stderr, "heddle: %s (%s, strategy %s, %.0f iterations/s)\n",
                   detail::pass_verdict(stats).c_str(), plan.program_path.c_str(), plan.chosen->describe().c_str(),
                   rate);
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
                        {"bounded_choices", stats.bounded_choices},
                        {"caveats", caveats},
                        {"status", found ? "bug" : divergence.empty() ? "passed" : "diverged"}};
    if (!found && divergence.empty()) j["verdict"] = detail::pass_verdict(stats);
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
