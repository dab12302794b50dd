// See iteration_server.hpp.
#include "rt/iteration_server.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "rt/loader_fini.hpp"
#include "rt/output_check.hpp"
#include "rt/run_report.hpp"
#include "rt/runtime_heap.hpp"
#include "rt/watchdog.hpp"
#include "runner/hang_clock.hpp"
#include "runner/interrupt.hpp"

namespace heddle::rt {

namespace {

using clock = std::chrono::steady_clock;

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

}  // namespace

iteration_server::iteration_server(run_plan& plan, fork_channel& ch, output_capture& output)
    : plan_(plan), ch_(ch), output_(output), log_event_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (log_event_ < 0) throw std::runtime_error(fmt::format("cannot create an eventfd: {}", std::strerror(errno)));
}

iteration_server::~iteration_server() { ::close(log_event_); }

iteration_result iteration_server::run(const program_entry& program) {
  reset_channel();
  output_.clear();
  input_.rewind();
  std::fflush(nullptr);
  // The steps' room, before the fork and as large as the longest iteration's
  // so far: grown while the child lives, each larger block would be another
  // page this process shares with the child, copied on its first write.
  result_ = {};
  result_.steps.reserve(steps_room_);
  result_.step_operations.reserve(steps_room_);
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
    runtime_heap::forked();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    detail::interrupt_scope::restore_in_child();  // the program's SIGINT and SIGTERM, not the server's
    // The system call, not the runtime's getppid, whose first call looks the
    // C library's up: a dlsym, a dozen page faults in every child.
    if (static_cast<pid_t>(::syscall(SYS_getppid)) != server) ::_exit(1);
    skip_runtime_fini();
    output_.redirect_here();
    auto logging = make_logging_strategy(*plan_.chosen, ch_, log_event_);
    run_iteration(program, plan_.opts, *logging, ch_);
  }
  serve(pid);
  steps_room_ = std::max(steps_room_, std::min<std::size_t>(result_.steps.size(), max_steps_room));
  return std::move(result_);
}

void iteration_server::reset_channel() {
  ch_.turn_word.store(static_cast<std::uint32_t>(turn::child), std::memory_order_relaxed);
  ch_.progress.store(0, std::memory_order_relaxed);
  ch_.current = 0;
  ch_.decisions_logged.store(0, std::memory_order_relaxed);
  ch_.enabled_used = 0;
  ch_.names_used = 0;
  ch_.has_weak_final = 0;
  ch_.weak_execution = 0;
  ch_.end = ending::running;
  ch_.exit_status = 0;
  ch_.hit_max_steps = 0;
  ch_.weak_order = 0;
  ch_.sc_in_run_order = 0;
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
void iteration_server::take_log() {
  const std::uint64_t logged = ch_.decisions_logged.load(std::memory_order_acquire);
  for (; consumed_ < logged; ++consumed_) {
    const decision_record& d = ch_.decisions[consumed_];
    const detail::pending_operation* enabled = ch_.enabled_pool + d.enabled_first;
    if (d.has_weak != 0) weak_copy_ = d.weak;
    const detail::decision_context ctx{std::span<const detail::pending_operation>(enabled, d.enabled_count),
                                       d.current,
                                       d.step,
                                       static_cast<std::size_t>(d.operation_count),
                                       d.user_state_hash,
                                       d.current_finished != 0,
                                       d.current_point,
                                       d.current_object,
                                       d.current_point_known != 0,
                                       d.has_weak != 0 ? &weak_copy_ : nullptr};
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
      detail::choice c = d.value_choice;
      if (d.has_names != 0) c.names = ch_.names_pool + d.names_first;
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
void iteration_server::forget_hand_off() {
  std::uint64_t count = 0;
  (void)!::read(log_event_, &count, sizeof count);
}

// The child's log is full: take it, empty it, let the child go on.
void iteration_server::hand_back_log() {
  forget_hand_off();
  if (ch_.turn_word.load(std::memory_order_acquire) != static_cast<std::uint32_t>(turn::parent)) return;
  take_log();
  consumed_ = 0;
  ch_.decisions_logged.store(0, std::memory_order_relaxed);
  ch_.enabled_used = 0;
  ch_.names_used = 0;
  ch_.turn_word.store(static_cast<std::uint32_t>(turn::child), std::memory_order_release);
  shared_wake(ch_.turn_word);
}

// Sleeps until the child ends, taking its log when it is full; kills it
// when it takes no decision for the iteration timeout.
void iteration_server::serve(pid_t pid) {
  const auto timeout = plan_.opts.iteration_timeout;
  const auto limit = timeout.count() > 0 ? timeout : std::chrono::milliseconds(std::numeric_limits<int>::max());
  const int child = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  // Wall time while the child is blocked, its CPU time while it runs: a
  // child waiting for a CPU on a loaded machine is not hung (hang_clock.hpp).
  detail::hang_clock watch(limit);
  watch.restart(pid, clock::now());
  std::uint64_t seen = 0;
  int status = 0;
  for (;;) {
    if (watch.expired(clock::now())) {
      if (child >= 0) ::close(child);
      hang(pid);
      return;
    }
    // Without a pidfd (Linux before 5.3), a short slice and waitpid.
    const auto slice = std::min<clock::duration>(
        limit, child >= 0 ? clock::duration(std::chrono::milliseconds(100)) : std::chrono::milliseconds(1));
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
      watch.restart(pid, clock::now());
    }
  }
}

void iteration_server::hang(pid_t pid) {
  take_log();  // who ran last (the child is stuck: nothing more comes before the kill)
  const operation_id running = last_chosen_ != 0 ? last_chosen_ : ch_.current;
  const std::string threads = describe_threads(pid, ch_, running, describe_operation(ch_, running));
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

void iteration_server::set_operation(bug& b, operation_id op) const {
  b.operation = op;
  b.operation_name = operation_name(ch_, op);
  b.step = result_.steps.size();
  if (op != 0 && op < ch_.operations_mirrored && ch_.operations[op].where.line() != 0) {
    const std::source_location& w = ch_.operations[op].where;
    b.where = {w.file_name(), w.line(), w.function_name()};
  }
}

void iteration_server::finish(int status) {
  result_.hit_max_steps = ch_.hit_max_steps != 0;
  result_.uncontrolled_inputs = ch_.uncontrolled_inputs.load(std::memory_order_relaxed);
  result_.weak_order = ch_.weak_order != 0;
  result_.sc_in_run_order = ch_.sc_in_run_order != 0;
  if (ch_.has_weak_final != 0) {
    weak_copy_ = ch_.weak_final;  // the last step's access, for the strategy's end_iteration
    result_.weak_execution = ch_.weak_execution;
  }
  if (ch_.stopped[0] != '\0') result_.stopped = std::string(ch_.stopped);
  if (ch_.end == ending::ended && ch_.found.present) {
    const bug_record& r = ch_.found;
    bug b;
    b.kind = r.kind;
    b.message = r.message;
    b.operation = r.operation;
    b.operation_name = r.operation_name[0] != '\0' ? std::string(r.operation_name) : operation_name(ch_, r.operation);
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
      b.message = fmt::format("stack overflow in {}", describe_operation(ch_, op));
    } else if (signal == SIGABRT) {
      b.kind = bug_kind::assertion;
      const std::string said = output_.last_line_with("Assertion");
      b.message = fmt::format("the program aborted (SIGABRT) in {}{}{}", describe_operation(ch_, op),
                              said.empty() ? "" : ": ", said);
    } else {
      b.kind = bug_kind::crash;
      b.message = fmt::format("{} in {}", name, describe_operation(ch_, op));
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

fork_channel* map_channel(std::uint64_t max_steps) {
  const std::size_t size = fork_channel::size_for(max_steps);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(fmt::format("cannot map the fork channel: {}", std::strerror(errno)));
  auto* ch = static_cast<fork_channel*>(p);
  ch->step_capacity = max_steps + 2;
  return ch;
}

}  // namespace heddle::rt
