// See fork_child.hpp.
#include "rt/fork_child.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/real.hpp"
#include "backends/stack_pool.hpp"
#include "backends/thread_backend.hpp"
#include "engine/engine.hpp"

// The pthread surface of libheddle-rt runs main() as a thread of its own
// (pthread_exit in main, waiting for the other threads). Weak, so the fork
// server also works in a runtime built without it.
namespace heddle::rt {
void run_main_thread(const std::function<void()>& body) __attribute__((weak));
}

namespace heddle::rt {

void shared_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, long timeout_ns) noexcept {
  timespec timeout{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected,
            timeout_ns > 0 ? &timeout : nullptr, nullptr, 0);
}

void shared_wake(std::atomic<std::uint32_t>& word) noexcept {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

namespace {

fork_channel* the_channel = nullptr;  // for the signal handler and exit()
detail::engine* the_engine = nullptr;

// Copies what the engine has into the channel (see its invariant). With
// `everything`, also refreshes the names and owners already mirrored.
void mirror(fork_channel& ch, const detail::engine& e, bool everything) {
  const detail::iteration_outcome& o = e.in_flight();
  const std::uint64_t steps = std::min<std::uint64_t>(o.steps.size(), ch.step_capacity);
  for (std::uint64_t i = ch.steps_mirrored; i < steps; ++i) ch.steps()[i] = o.steps[i];
  ch.steps_mirrored = steps;
  const operation_id ops = std::min<operation_id>(e.operation_count(), max_operations);
  const operation_id current = e.running();
  for (operation_id id = 1; id < ops; ++id) {
    const detail::operation& op = e.operation_at(id);
    operation_mirror& m = ch.operations[id];
    if (everything || id >= ch.operations_mirrored || id == current) copy_text(m.name, op.name.c_str());
    m.point = op.point;
    m.object = op.object;
    m.status = static_cast<std::uint8_t>(op.status);
    m.where = op.where;
  }
  if (current != 0 && current < ops) ch.operations[current].tid = static_cast<std::int32_t>(::gettid());
  ch.operations_mirrored = ops;
  const object_id objects = std::min<object_id>(e.object_count(), max_objects);
  for (object_id id = everything ? 1 : std::max<object_id>(ch.objects_mirrored, 1); id < objects; ++id) {
    auto& state = const_cast<detail::engine&>(e).object(id);
    ch.objects[id] = {state.kind, state.owner};
  }
  ch.objects_mirrored = objects;
}

void hand_to_parent(fork_channel& ch) {
  ch.turn_word.store(static_cast<std::uint32_t>(turn::parent), std::memory_order_release);
  shared_wake(ch.turn_word);
}

void ask_parent(fork_channel& ch) {
  hand_to_parent(ch);
  while (ch.turn_word.load(std::memory_order_acquire) != static_cast<std::uint32_t>(turn::child))
    shared_wait(ch.turn_word, static_cast<std::uint32_t>(turn::parent), 0);
}

class remote_strategy final : public detail::strategy {
 public:
  explicit remote_strategy(fork_channel& ch) : ch_(ch) {}

  void begin_iteration(std::uint64_t, std::uint64_t) override {}
  std::size_t next_operation(const detail::decision_context& ctx) override {
    return static_cast<std::size_t>(question(ctx, request::next_operation));
  }
  std::uint64_t next_value(const detail::decision_context& ctx, const detail::choice& c) override {
    ch_.question_choice = c;
    return question(ctx, request::next_value);
  }
  void end_iteration(const detail::iteration_summary&) override {}
  std::string describe() const override { return "remote"; }
  std::string stop_reason() const override { return ch_.stop_reason; }

 private:
  // The parent's answer: an index, a value, or `stop`.
  std::uint64_t question(const detail::decision_context& ctx, request what) {
    if (ctx.enabled.size() > max_operations) {
      std::fprintf(stderr, "heddle: more than %zu operations at once: not supported\n", max_operations);
      std::_Exit(3);
    }
    mirror(ch_, *the_engine, false);
    ch_.question = what;
    ch_.enabled_count = static_cast<std::uint32_t>(ctx.enabled.size());
    std::copy(ctx.enabled.begin(), ctx.enabled.end(), ch_.enabled);
    ch_.current = ctx.current;
    ch_.step = ctx.step;
    ch_.operation_count = ctx.operation_count;
    ch_.user_state_hash = ctx.user_state_hash;
    ch_.current_finished = ctx.current_finished;
    ask_parent(ch_);
    return ch_.answer;
  }
  fork_channel& ch_;
};

// The iteration is over in the engine: report how, and end the process.
[[noreturn]] void iteration_over(void*) {
  fork_channel& ch = *the_channel;
  const detail::engine& e = *the_engine;
  mirror(ch, e, true);
  const detail::iteration_outcome& o = e.in_flight();
  ch.hit_max_steps = o.hit_max_steps;
  if (o.stopped) copy_text(ch.stopped, o.stopped->c_str());
  if (o.found) {
    const bug& b = *o.found;
    ch.found.present = 1;
    ch.found.kind = b.kind;
    ch.found.operation = b.operation;
    ch.found.line = b.where.line;
    ch.found.step = b.step;
    copy_text(ch.found.message, b.message.c_str());
    copy_text(ch.found.operation_name, b.operation_name.c_str());
    copy_text(ch.found.file, b.where.file.c_str());
    copy_text(ch.found.function, b.where.function.c_str());
  }
  ch.question = request::ended;
  std::fflush(nullptr);
  hand_to_parent(ch);
  std::_Exit(0);
}

constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

void on_fatal_signal(int signal, siginfo_t* info, void*) {
  if (fork_channel* ch = the_channel; ch != nullptr && ch->crash.signal == 0) {
    ch->crash.operation = detail::control.running;
    ch->crash.stack_overflow = (signal == SIGSEGV || signal == SIGBUS) && info != nullptr &&
                               detail::stack_pool::is_guard_page(info->si_addr);
    ch->crash.signal = signal;
    shared_wake(ch->turn_word);
  }
  // SA_RESETHAND restored the default action: die of the signal.
  ::raise(signal);
}

void install_crash_handlers() {
  static char alternate[64 * 1024];
  stack_t stack{};
  stack.ss_sp = alternate;
  stack.ss_size = sizeof alternate;
  ::sigaltstack(&stack, nullptr);
  struct sigaction action{};
  action.sa_sigaction = &on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int s : fatal_signals) ::sigaction(s, &action, nullptr);
}

}  // namespace

std::unique_ptr<detail::strategy> make_remote_strategy(fork_channel& channel) {
  return std::make_unique<remote_strategy>(channel);
}

// exit() and returning from main: a scheduling point, then the real exit
// with the iteration's control switched off on this thread, so atexit
// handlers and static destructors run as in production while the program's
// other threads stay stopped.
[[noreturn]] void exit_program(int status) {
  if (the_channel != nullptr && the_engine != nullptr && detail::control.engine == the_engine &&
      detail::control.running != 0 && !detail::control.unwinding) {
    // No source location: the program's own exit, not a line of the runtime.
    heddle::scheduling_point(point_kind::yield, std::source_location{});
    fork_channel& ch = *the_channel;
    mirror(ch, *the_engine, true);
    ch.exit_status = status;
    ch.question = request::exiting;
    detail::control = {};
    std::fflush(nullptr);
    hand_to_parent(ch);
  }
  HEDDLE_REAL(exit)(status);
  __builtin_unreachable();
}

void run_iteration(const program_entry& program, const options& o, detail::strategy& s, fork_channel& channel) {
  the_channel = &channel;
  install_crash_handlers();
  // Deep recursion in a program's main is common: operation threads get the
  // stack a main thread would have, at least.
  detail::thread_backend threads(std::max<std::size_t>(o.stack_size, 8u << 20));
  detail::engine engine(threads, {o.max_steps, o.fail_on_max_steps, o.spurious_wakeups, o.spurious_cas_failures,
                                  o.memory, o.detect_races});
  the_engine = &engine;
  threads.on_scheduler_resumed(&iteration_over, nullptr);
  const std::function<void()> body = [&program] {
    int status = 0;
    const std::function<void()> call_main = [&] { status = program.main(program.argc, program.argv, program.envp); };
    if (run_main_thread != nullptr) run_main_thread(call_main);
    else call_main();
    exit_program(status);
  };
  (void)engine.run(s, body);
  iteration_over(nullptr);  // not reached: the backend's hook ends the process
}

}  // namespace heddle::rt
