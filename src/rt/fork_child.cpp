// See fork_child.hpp.
#include "rt/fork_child.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include <fmt/format.h>
#include <link.h>
#include <malloc.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/real.hpp"
#include "backends/fiber_backend.hpp"
#include "backends/stack_pool.hpp"
#include "backends/thread_backend.hpp"
#include "engine/engine.hpp"
#include "engine/weak_memory.hpp"
#include "heddle/explore.hpp"
#include "rt/known_libraries.hpp"
#include "rt/loader_fini.hpp"
#include "rt/runtime_heap.hpp"

// The pthread surface of libheddle-rt runs main() as a thread of its own
// (pthread_exit in main, waiting for the other threads). Weak, so the fork
// server also works in a runtime built without it.
namespace heddle::rt {
void run_main_thread(const std::function<void()>& body) __attribute__((weak));
std::uintptr_t start_routine_of(operation_id op) noexcept __attribute__((weak));
void resolve_signal_functions() noexcept __attribute__((weak));
void map_thread_records() noexcept __attribute__((weak));
// Futex calls a library makes with its own system call instruction (libgomp):
// rt/futex_trap.hpp.
const char* find_own_futex_callers() noexcept __attribute__((weak));
void trap_own_futex_calls() noexcept __attribute__((weak));
// What the program is told of its CPUs once the server is pinned (pthread_threads.cpp).
void remember_program_affinity() noexcept __attribute__((weak));
}
// And its ThreadSanitizer hooks (rt/tsan_runtime.hpp).
namespace heddle::rt::tsan {
void ignore_thread_storage(std::uintptr_t begin, std::uintptr_t end) noexcept __attribute__((weak));
}

namespace heddle::rt {

namespace {

// The C library's exit, looked up once in the fork server (prepare_children).
decltype(&::exit) real_exit() noexcept { return HEDDLE_REAL(exit); }

// Deep recursion in a program's main is common: operation threads get the
// stack a main thread would have, at least.
std::size_t operation_stack_size(const options& o) { return std::max<std::size_t>(o.stack_size, 8u << 20); }

bool on_fibers(const options& o) { return o.backend == "fibers"; }

// The fibers backend's stacks: a pool mapped once (in the fork server, whose
// children inherit it) and never destroyed, since the program's exit() runs
// on one of its stacks and destroys thread_local objects, such as the pool
// a fiber_backend takes by default.
detail::stack_pool& child_stacks(const options& o) {
  static detail::stack_pool* const pool = new detail::stack_pool(operation_stack_size(o));  // NOLINT: never freed
  return *pool;
}

// On fibers every operation runs on this thread: the static thread-local
// storage of all loaded objects (errno, the program's thread_local
// variables) lies at one address for all of them, where each thread would
// have its own (the backend swaps the program's contents per operation).
// Accesses there are not data races of the program.
void ignore_shared_thread_storage() {
  static bool done = false;
  if (done) return;
  done = true;
  std::uintptr_t span[2] = {UINTPTR_MAX, 0};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<std::uintptr_t*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type != PT_TLS || info->dlpi_tls_data == nullptr) continue;
          const auto begin = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
          s[0] = std::min(s[0], begin);
          s[1] = std::max(s[1], begin + info->dlpi_phdr[i].p_memsz);
        }
        return 0;
      },
      span);
  if (span[0] < span[1] && tsan::ignore_thread_storage != nullptr) tsan::ignore_thread_storage(span[0], span[1]);
}

// The static thread-local storage of the program's objects (not the C and
// C++ runtime's, whose per-thread state the backend keeps otherwise, nor
// heddle's own), as the fork server's thread holds it: on fibers each
// operation gets its own copy (fiber_backend::keep_thread_storage_per_operation).
// Found once, in the fork server; a child's initial thread has it at the
// same addresses.
bool holds_this_code(const dl_phdr_info& info) {
  const auto here = reinterpret_cast<std::uintptr_t>(&holds_this_code);
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type == PT_LOAD && here - (info.dlpi_addr + segment.p_vaddr) < segment.p_memsz) return true;
  }
  return false;
}

const std::vector<detail::thread_storage_block>& program_thread_storage() {
  static const std::vector<detail::thread_storage_block>* const blocks = [] {
    auto* found = new std::vector<detail::thread_storage_block>;  // NOLINT: never freed, as the fork server's state
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
          if ((info->dlpi_name != nullptr && *info->dlpi_name != '\0' && is_runtime_object(info->dlpi_name)) ||
              holds_this_code(*info))
            return 0;
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& segment = info->dlpi_phdr[i];
            if (segment.p_type != PT_TLS || info->dlpi_tls_data == nullptr || segment.p_memsz == 0) continue;
            static_cast<std::vector<detail::thread_storage_block>*>(data)->push_back(
                {static_cast<std::byte*>(info->dlpi_tls_data), segment.p_memsz,
                 reinterpret_cast<const std::byte*>(info->dlpi_addr + segment.p_vaddr), segment.p_filesz});
          }
          return 0;
        },
        found);
    return found;
  }();
  return *blocks;
}

}  // namespace

void shared_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, long timeout_ns) noexcept {
  timespec timeout{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  detail::real::futex(reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected,
                      timeout_ns > 0 ? &timeout : nullptr);
}

void shared_wake(std::atomic<std::uint32_t>& word) noexcept {
  detail::real::futex(reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1, nullptr);
}

namespace {

fork_channel* the_channel = nullptr;  // for the signal handler and exit()
detail::engine* the_engine = nullptr;
// The rc11 model's record of the last atomic access, once the iteration has one.
const detail::weak_access* the_weak = nullptr;

// What the iteration's end tells the parent about the memory model: the
// verdict's caveats (weaker orders ran, seq_cst accesses ordered as they ran)
// and, under rc11, the last access and the execution for its strategy
// (iteration_summary).
void report_memory_model(fork_channel& ch) {
  const detail::iteration_outcome& o = the_engine->in_flight();
  ch.weak_order = o.weak_order;
  ch.sc_in_run_order = o.sc_in_run_order;
  ch.has_weak_final = the_weak != nullptr;
  if (the_weak != nullptr) {
    ch.weak_final = *the_weak;
    ch.weak_execution = the_engine->weak_memory_state().execution();
  }
}

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
    if (id >= ch.operations_mirrored) m.tid = 0;
    if (everything || id >= ch.operations_mirrored || id == current) copy_text(m.name, e.operation_name(id));
    // An id its record no longer runs (a coroutine's resumption went on as
    // another, engine::renew) has finished.
    const detail::op_status status = e.status_of(id);
    m.point = status == detail::op_status::finished ? point_kind::finish : op.point;
    m.object = op.object;
    m.status = static_cast<std::uint8_t>(status);
    m.where = op.where;
    m.start_pc = start_routine_of != nullptr ? start_routine_of(id) : 0;
  }
  // An operation runs on one thread from start to end: asked once.
  if (current != 0 && current < ops && ch.operations[current].tid == 0)
    ch.operations[current].tid = static_cast<std::int32_t>(::syscall(SYS_gettid));  // not the interposer
  ch.operations_mirrored = ops;
  const object_id objects = std::min<object_id>(e.object_count(), max_objects);
  for (object_id id = everything ? 1 : std::max<object_id>(ch.objects_mirrored, 1); id < objects; ++id) {
    auto& state = const_cast<detail::engine&>(e).object(id);
    ch.objects[id] = {state.kind, state.owner};
  }
  ch.objects_mirrored = objects;
}

bool same_operation(const detail::pending_operation& a, const detail::pending_operation& b) noexcept {
  return a.id == b.id && a.chain == b.chain && a.parent == b.parent && a.point == b.point && a.object == b.object &&
         a.timed == b.timed;
}

class logging_strategy final : public detail::strategy {
 public:
  logging_strategy(detail::strategy& inner, fork_channel& ch, int parent_event)
      : inner_(inner), ch_(ch), parent_event_(parent_event) {}

  // The parent began the iteration before the fork and ends it after the
  // child: the inherited copy only decides.
  void begin_iteration(std::uint64_t, std::uint64_t) override {}
  std::size_t next_operation(const detail::decision_context& ctx) override {
    mirror(ch_, *the_engine, false);
    std::size_t pick = 0;
    {
      const runtime_heap::scope inherited;  // the strategy's state is the fork server's
      pick = inner_.next_operation(ctx);
    }
    log(ctx, false, {}, pick);
    return pick;
  }
  std::uint64_t next_value(const detail::decision_context& ctx, const detail::choice& c) override {
    mirror(ch_, *the_engine, false);
    std::uint64_t value = 0;
    {
      const runtime_heap::scope inherited;
      value = inner_.next_value(ctx, c);
    }
    log(ctx, true, c, value);
    return value;
  }
  void end_iteration(const detail::iteration_summary&) override {}
  std::string describe() const override { return inner_.describe(); }
  bool is_fair() const override { return inner_.is_fair(); }
  std::string stop_reason() const override { return inner_.stop_reason(); }

 private:
  void log(const detail::decision_context& ctx, bool is_value, const detail::choice& c, std::uint64_t answer) {
    const std::size_t count = ctx.enabled.size();
    if (count > max_operations) {
      std::fprintf(stderr, "heddle: more than %zu operations at once: not supported\n", max_operations);
      std::_Exit(3);
    }
    std::uint64_t n = ch_.decisions_logged.load(std::memory_order_relaxed);
    // Consecutive decisions often see the same enabled set: it is kept once.
    bool same = last_count_ == count && last_first_ + count <= ch_.enabled_used;
    for (std::size_t i = 0; same && i < count; ++i) same = same_operation(ch_.enabled_pool[last_first_ + i], ctx.enabled[i]);
    const std::size_t names = is_value && c.names != nullptr ? c.bound : 0;
    if (names > names_capacity) {
      std::fprintf(stderr, "heddle: a load or store with more than %zu choices: not supported\n", names_capacity);
      std::_Exit(3);
    }
    if (n == decision_capacity || (!same && ch_.enabled_used + count > enabled_capacity) ||
        ch_.names_used + names > names_capacity) {
      hand_log_to_parent();
      n = 0;
      same = false;
    }
    if (!same) {
      last_first_ = ch_.enabled_used;
      last_count_ = count;
      std::copy(ctx.enabled.begin(), ctx.enabled.end(), ch_.enabled_pool + last_first_);
      ch_.enabled_used += static_cast<std::uint32_t>(count);
    }
    decision_record& r = ch_.decisions[n];
    r.step = ctx.step;
    r.operation_count = ctx.operation_count;
    r.user_state_hash = ctx.user_state_hash;
    r.answer = answer;
    r.value_choice = c;
    r.value_choice.names = nullptr;  // this process's address: the names go to the pool
    r.has_names = names != 0;
    r.names_first = ch_.names_used;
    if (names != 0) {
      std::copy(c.names, c.names + names, ch_.names_pool + ch_.names_used);
      ch_.names_used += static_cast<std::uint32_t>(names);
    }
    r.current_point_known = ctx.current_point_known;
    r.current_point = ctx.current_point;
    r.current_object = ctx.current_object;
    r.has_weak = ctx.weak != nullptr;
    if (ctx.weak != nullptr) the_weak = ctx.weak;
    if (ctx.weak != nullptr) r.weak = *ctx.weak;
    r.current = ctx.current;
    r.enabled_first = static_cast<std::uint32_t>(last_first_);
    r.enabled_count = static_cast<std::uint32_t>(count);
    r.is_value = is_value;
    r.current_finished = ctx.current_finished;
    ch_.current = ctx.current;
    ch_.decisions_logged.store(n + 1, std::memory_order_release);
    ch_.progress.store(ch_.progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // The log is full: the parent takes it and empties it.
  void hand_log_to_parent() {
    ch_.turn_word.store(static_cast<std::uint32_t>(turn::parent), std::memory_order_release);
    const std::uint64_t one = 1;
    if (::write(parent_event_, &one, sizeof one) != sizeof one) std::_Exit(3);
    while (ch_.turn_word.load(std::memory_order_acquire) != static_cast<std::uint32_t>(turn::child))
      shared_wait(ch_.turn_word, static_cast<std::uint32_t>(turn::parent), 0);
    last_count_ = 0;
    last_first_ = 0;
  }

  detail::strategy& inner_;
  fork_channel& ch_;
  int parent_event_;
  // The enabled set of the last decision: enabled_pool[last_first_, + last_count_).
  std::size_t last_first_ = 0;
  std::size_t last_count_ = 0;
};

// The iteration is over in the engine: report how, and end the process.
[[noreturn]] void iteration_over(void*) {
  fork_channel& ch = *the_channel;
  const detail::engine& e = *the_engine;
  mirror(ch, e, true);
  const detail::iteration_outcome& o = e.in_flight();
  ch.hit_max_steps = o.hit_max_steps;
  report_memory_model(ch);
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
  ch.end = ending::ended;
  std::fflush(nullptr);
  std::_Exit(0);
}

constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

// The addresses below the initial thread's stack where an overflow of it
// faults: the kernel's guard gap (256 pages by default) under the lowest
// address the stack may grow to. The program's main runs on that thread
// (thread_backend::run_first_operation_here). Found once: glibc reads
// /proc/self/maps to answer.
struct address_range {
  std::uintptr_t begin = 0, end = 0;
};
address_range main_stack_guard;

void find_main_stack_guard() {
  static bool found = false;
  if (found) return;
  found = true;
  pthread_attr_t attributes;
  if (HEDDLE_REAL(pthread_getattr_np)(HEDDLE_REAL(pthread_self)(), &attributes) != 0) return;
  void* lowest = nullptr;
  std::size_t size = 0;
  if (::pthread_attr_getstack(&attributes, &lowest, &size) == 0 && lowest != nullptr) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto low = reinterpret_cast<std::uintptr_t>(lowest);
    main_stack_guard = {low > 257 * page ? low - 257 * page : 0, low + page};
  }
  ::pthread_attr_destroy(&attributes);
}

bool is_stack_guard(const void* address) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  return detail::stack_pool::is_guard_page(address) || (a >= main_stack_guard.begin && a < main_stack_guard.end);
}

void on_fatal_signal(int signal, siginfo_t* info, void*) {
  if (fork_channel* ch = the_channel; ch != nullptr && ch->crash.signal == 0) {
    ch->crash.operation = detail::control.running;
    ch->crash.stack_overflow = (signal == SIGSEGV || signal == SIGBUS) && info != nullptr &&
                               is_stack_guard(info->si_addr);
    ch->crash.signal = signal;
  }
  // SA_RESETHAND restored the default action: die of the signal.
  ::raise(signal);
}

// Installed once: a forked child inherits the handlers and this thread's
// alternate stack.
void install_crash_handlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
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

std::unique_ptr<detail::strategy> make_logging_strategy(detail::strategy& inner, fork_channel& channel,
                                                        int parent_event) {
  return std::make_unique<logging_strategy>(inner, channel, parent_event);
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
    report_memory_model(ch);
    ch.exit_status = status;
    ch.end = ending::exiting;
    detail::control = {};
  }
  real_exit()(status);
  __builtin_unreachable();
}

void prepare_children(const options& o) {
  // First: it forks a probe, before the backends set up their fork handlers.
  if (find_own_futex_callers != nullptr) (void)find_own_futex_callers();
  // A library whose threads hand each other pointers to their thread_local
  // state (libgomp, liburcu): on fibers every thread's copy lies at one
  // address, and such a program deadlocked or crashed where it is correct.
  // Refused, rather than reported as the program's bug.
  if (on_fibers(o)) {
    if (const known_library library = thread_local_by_pointer(); library.path != nullptr)
      throw usage_error(fmt::format("{}, {}, hands each thread's thread_local state to its other threads by "
                                    "pointer, which --backend fibers cannot give (every fiber's copy lies at one "
                                    "address): run it on --backend threads",
                                    library.what, library.path));
  }
  install_crash_handlers();
  prepare_runtime_fini();
  find_main_stack_guard();
  (void)real_exit();
  // The C library's functions a child calls through the runtime's
  // interposers, looked up here once rather than by a dlsym in every child.
  if (resolve_signal_functions != nullptr) resolve_signal_functions();
  // And the pthread surface's records of the program's threads, mapped once.
  if (map_thread_records != nullptr) map_thread_records();
  // A small program's operations start in a child without mapping their
  // stacks: main and two threads (on threads, main runs on the child's
  // initial thread).
  constexpr std::size_t usual_operations = 3;
  if (on_fibers(o)) {
    detail::stack_pool& pool = child_stacks(o);
    boost::context::stack_context stacks[usual_operations];
    for (auto& s : stacks) s = pool.allocate();
    for (auto& s : stacks) pool.deallocate(s);
    ignore_shared_thread_storage();
    (void)program_thread_storage();
    detail::fiber_backend warm(pool, true);
    { const detail::engine warm_engine(warm, {}); }  // the engine's one-time setup (its terminate handler)
  } else {
    // One malloc arena for the program's threads: only one runs at a time
    // under control, so a thread's first malloc need not map, trim and
    // protect an arena of its own in every child (3 page faults and 7 system
    // calls per thread, each undone at the child's exit). On fibers every
    // operation already allocates from the main arena. Unless the user chose.
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (std::getenv("MALLOC_ARENA_MAX") == nullptr &&
        (tunables == nullptr || std::strstr(tunables, "arena_max") == nullptr))
      ::mallopt(M_ARENA_MAX, 1);
    detail::thread_backend::reserve_memory(usual_operations, operation_stack_size(o));
    // A backend's one-time setup (its fork handler, the process's CPU mask,
    // the real pthread_create); and pinning the way its iterations pin, so the
    // pthread_self and pthread_setaffinity_np behind it are looked up here too.
    detail::thread_backend warm(operation_stack_size(o));
    // And the engine's (its terminate handler), which a child would otherwise
    // install again in every iteration.
    { const detail::engine warm_engine(warm, {}); }
  }
  const int cpu = ::sched_getcpu();
  if (cpu < 0) return;
  if (remember_program_affinity != nullptr) remember_program_affinity();
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
}

void run_iteration(const program_entry& program, const options& o, detail::strategy& s, fork_channel& channel) {
  the_channel = &channel;
  install_crash_handlers();
  find_main_stack_guard();
  // Before the backend starts a thread: they inherit the filter.
  if (trap_own_futex_calls != nullptr) trap_own_futex_calls();
  const std::function<void()> body = [&program] {
    int status = 0;
    const std::function<void()> call_main = [&] { status = program.main(program.argc, program.argv, program.envp); };
    if (run_main_thread != nullptr) run_main_thread(call_main);
    else call_main();
    exit_program(status);
  };
  // The backend's hook ends the process when control would go back to the
  // scheduler: engine::run does not return.
  const auto run_on = [&](auto& backend) {
    detail::engine engine(backend, {o.max_steps, o.fail_on_max_steps, o.spurious_wakeups, o.spurious_cas_failures,
                                    o.memory, o.detect_races, o.memory_model});
    the_engine = &engine;
    backend.on_scheduler_resumed(&iteration_over, nullptr);
    (void)engine.run(s, body);
  };
  if (on_fibers(o)) {
    ignore_shared_thread_storage();
    detail::fiber_backend fibers(child_stacks(o), true);
    fibers.keep_thread_storage_per_operation(program_thread_storage());
    run_on(fibers);
  } else {
    detail::thread_backend threads(operation_stack_size(o));
    threads.run_first_operation_here();
    run_on(threads);
  }
  iteration_over(nullptr);  // not reached
}

}  // namespace heddle::rt
