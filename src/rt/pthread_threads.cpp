// Threads under control: pthread_create/join/detach/exit/self/equal, deferred
// cancellation, C cleanup handlers, and the name/attribute calls that would
// otherwise receive a pthread_t the C library never made.
//
// A controlled thread is an operation (heddle::spawn); its pthread_t is the
// address of its thread_record, valid for the iteration. pthread_exit and an
// acted-on cancellation unwind the thread: first through the C cleanup
// handlers glibc registered with __pthread_register_cancel (a longjmp into each
// handler's frame; glibc's macro then calls __pthread_unwind_next), then with
// a private exception, so C++ destructors and the C++ form of
// pthread_cleanup_push run as with glibc's forced unwinding. The thread's
// result is then PTHREAD_CANCELED or pthread_exit's value.
//
// Misuse is a bug of kind API misuse: joining a thread that does not exist,
// that was joined, that another thread joins, or that was detached. Joining
// oneself returns EDEADLK as in glibc.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csetjmp>
#include <cstring>
#include <deque>
#include <new>
#include <string>
#include <unordered_set>
#include <utility>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

// Thrown to unwind a thread that exits or is cancelled; not derived from
// std::exception, so `catch (const std::exception&)` lets it pass.
struct thread_exit {};

// Where the running iteration's thread records live: at one fixed address
// in every process, so that a pthread_t (a record's address) is the same
// number in every run of a schedule, on both backends and with any address
// randomization. Programs hash thread ids (libstdc++'s std::barrier places a
// thread in its tree by std::hash<std::thread::id>) or order by them, and
// would otherwise take other paths on replay. Mapped on first use in each
// process, or by the fork server before its first child (map_thread_records:
// a child then inherits the mapping, with no page of it touched, instead of
// creating and tearing down one per iteration); records past its end, or all
// of them when the address is taken, come from the heap.
constexpr std::uintptr_t record_arena_address = 0x7e0000000000;
constexpr std::size_t record_arena_capacity = 1024;

thread_record* record_arena() {
  static thread_record* const arena = [] {
    void* p = ::mmap(reinterpret_cast<void*>(record_arena_address), record_arena_capacity * sizeof(thread_record),
                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) return static_cast<thread_record*>(nullptr);
    if (p != reinterpret_cast<void*>(record_arena_address)) {  // a kernel without MAP_FIXED_NOREPLACE
      ::munmap(p, record_arena_capacity * sizeof(thread_record));
      return static_cast<thread_record*>(nullptr);
    }
    return static_cast<thread_record*>(p);
  }();
  return arena;
}

}  // namespace

void map_thread_records() noexcept { (void)record_arena(); }

namespace {

// The running iteration's threads (see side_table for the epoch rule).
struct thread_table {
  std::uint32_t epoch = 0;
  std::vector<thread_record*> records;  // in creation order
  std::size_t in_arena = 0;             // records[0, in_arena) are in the arena
  std::deque<thread_record> overflow;
  std::vector<thread_record*> by_op;  // index = operation id
  std::unordered_set<const thread_record*> valid;

  void sync() {
    if (epoch == detail::control.epoch) return;
    by_op.clear();
    valid.clear();
    for (std::size_t i = 0; i < in_arena; ++i) records[i]->~thread_record();
    in_arena = 0;
    records.clear();
    overflow.clear();
    epoch = detail::control.epoch;
  }
  thread_record& add(operation_id op) {
    thread_record* arena = in_arena == records.size() && in_arena < record_arena_capacity ? record_arena() : nullptr;
    thread_record& r = arena != nullptr ? *::new (arena + in_arena++) thread_record() : overflow.emplace_back();
    records.push_back(&r);
    r.op = op;
    valid.insert(&r);
    if (op != 0) attach(r, op);
    return r;
  }
  void attach(thread_record& r, operation_id op) {
    r.op = op;
    if (by_op.size() <= op) by_op.resize(op + 1, nullptr);
    by_op[op] = &r;
    r.done.set_owner(op);  // deadlock messages say "waits for operation 2 to finish"
  }
};

// The table as it is: the last iteration's threads, also once its control
// is off (stopped_thread). Never destroyed: the exit path's destructors that
// join threads run after the C++ static destructors.
thread_table& last_threads() {
  static thread_table& table = *new thread_table;
  return table;
}

thread_table& threads() {
  thread_table& table = last_threads();
  table.sync();
  return table;
}

// pthread_key_create's destructors, by key, for keys made in any context
// (keys are small integers below PTHREAD_KEYS_MAX).
using key_destructor = void (*)(void*);
std::atomic<key_destructor> key_destructors[PTHREAD_KEYS_MAX];

void run_key_destructors(thread_record& r) {
  for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; ++round) {
    bool ran = false;
    for (auto& [key, value] : r.specific) {
      if (value == nullptr || key >= PTHREAD_KEYS_MAX) continue;
      const key_destructor d = key_destructors[key].load(std::memory_order_acquire);
      if (d == nullptr) continue;
      void* v = std::exchange(value, nullptr);
      d(v);
      ran = true;
    }
    if (!ran) return;
  }
}

// One step of unwinding an exiting thread: the innermost C cleanup handler,
// else the exception.
[[noreturn]] void unwind_step(thread_record& r) {
  if (!r.c_cleanup.empty()) {
    void* buf = r.c_cleanup.back();
    r.c_cleanup.pop_back();
    // glibc's __pthread_unwind_buf_t starts with the jmp_buf that
    // __sigsetjmp_cancel filled in pthread_cleanup_push.
    std::longjmp(*static_cast<std::jmp_buf*>(buf), 1);
  }
  throw thread_exit{};
}

// glibc's __call_tls_dtors: last registered first, including those a
// destructor registers.
void run_thread_local_destructors(thread_record& r) {
  while (!r.thread_local_destructors.empty()) {
    const auto [destructor, object] = r.thread_local_destructors.back();
    r.thread_local_destructors.pop_back();
    destructor(object);
  }
}

// A thread's exit (its start routine returned, or pthread_exit or a
// cancellation unwound it), in glibc's order: thread_local destructors, then
// up to PTHREAD_DESTRUCTOR_ITERATIONS rounds of key destructors; then its
// joiner may go on.
void finish(thread_record& r) {
  run_thread_local_destructors(r);
  run_key_destructors(r);
  r.finished = true;
  signal(r.done);
}

void run_thread(thread_record& r, void* (*start)(void*), void* arg) {
  try {
    r.result = start(arg);
  } catch (const thread_exit&) {
    // r.result was set by exit_thread.
  }
  signal_delivery_point();  // a signal sent to it after its last call: the kernel delivers it before the exit
  finish(r);
}

}  // namespace

namespace {
// Index = operation id: the start routine of the thread it runs, for the
// operation's name in reports (fork_child.cpp mirrors it; symbolized only
// when a report is made).
std::vector<std::uintptr_t>& start_routines() {
  static std::vector<std::uintptr_t>* const routines = new std::vector<std::uintptr_t>();  // NOLINT: never freed
  return *routines;
}
}  // namespace

void note_start_routine(operation_id op, std::uintptr_t pc) {
  std::vector<std::uintptr_t>& routines = start_routines();
  if (op >= routines.size()) routines.resize(std::max<std::size_t>(op + 1, 64));
  routines[op] = pc;
}

std::uintptr_t start_routine_of(operation_id op) noexcept {
  const std::vector<std::uintptr_t>& routines = start_routines();
  return op < routines.size() ? routines[op] : 0;
}

thread_record& self() {
  thread_table& t = threads();
  const operation_id op = current_operation();
  if (op < t.by_op.size() && t.by_op[op] != nullptr) return *t.by_op[op];
  return t.add(op);  // operation 1, or one heddle::thread started
}

thread_record* find_thread(pthread_t handle) {
  thread_table& t = threads();
  auto* r = reinterpret_cast<thread_record*>(handle);
  return t.valid.contains(r) ? r : nullptr;
}

void cancellation_point() {
  thread_record& r = self();
  if (!r.cancel_pending || !r.cancel_enabled || r.exiting || unwinding()) return;
  r.exiting = true;
  r.result = PTHREAD_CANCELED;
  unwind_step(r);
}

void exit_thread(void* value) {
  thread_record& r = self();
  r.exiting = true;
  r.result = value;
  unwind_step(r);
}

void run_main_thread(const std::function<void()>& body) {
  try {
    body();
    return;
  } catch (const thread_exit&) {
  }
  // pthread_exit in main: the process lives on until its last thread ends.
  thread_record& me = self();
  run_thread_local_destructors(me);
  run_key_destructors(me);
  me.finished = true;
  thread_table& t = threads();
  for (thread_record* r : t.records)
    while (r != &me && !r->finished) wait(r->done, {});
}

}  // namespace heddle::rt

using heddle::rt::controlled;
using heddle::rt::thread_record;

HEDDLE_RT_DEFINE(int, pthread_create,
                 (pthread_t * thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_create)(thread, attr, start, arg);
  // glibc's pthread_create clears the flag for good once a second thread
  // exists; libstdc++ then uses atomic reference counts (shared_ptr...) and
  // the C library its locks, as in production.
  __libc_single_threaded = 0;
  // Attributes (stack size, scheduling) mean nothing to an operation; only
  // the detach state is kept.
  int detach = PTHREAD_CREATE_JOINABLE;
  if (attr != nullptr) pthread_attr_getdetachstate(attr, &detach);
  thread_record& r = heddle::rt::threads().add(0);
  r.detached = detach == PTHREAD_CREATE_DETACHED;
  const heddle::operation_id op =
      heddle::spawn([&r, start, arg] { heddle::rt::run_thread(r, start, arg); }, {});
  heddle::rt::threads().attach(r, op);
  heddle::rt::inherit_signal_mask(heddle::current_operation(), op);
  heddle::rt::note_start_routine(op, reinterpret_cast<std::uintptr_t>(start));
  *thread = reinterpret_cast<pthread_t>(&r);
  return 0;
}

namespace heddle::rt {
namespace {

// pthread_join and its non-portable variants: `call` names the function in
// messages; without `blocking` a thread still running gives EBUSY, with a
// deadline ETIMEDOUT once it passes.
int join(const char* call, pthread_t thread, void** result, bool blocking, std::optional<virtual_time> deadline) {
  thread_record& me = self();
  thread_record* r = find_thread(thread);
  // The messages are made only for a misuse: a join is common, and
  // formatting pulls code a forked child would fault in for nothing.
  if (!unwinding()) {
    const std::string_view c = call;
    if (r == nullptr)
      report_misuse(std::string(c) + " of a thread that does not exist (no thread with this id was created in "
                                     "this execution, or it belongs to an earlier one)");
    if (r == &me) return EDEADLK;
    if (r->detached)
      report_misuse(std::string(c) + " of a detached thread (" + describe(r->op) +
                    "): a detached thread cannot be joined");
    if (r->joined)
      report_misuse(std::string(c) + " of a thread that was already joined (" + describe(r->op) +
                    "): each thread can be joined once");
    if (r->being_joined)
      report_misuse(std::string(c) + " of a thread another thread is already joining (" + describe(r->op) + ")");
  }
  if (r == nullptr || r == &me) return ESRCH;
  cancellation_point();
  r->being_joined = true;
  me.joining = r;
  const auto give_up = [&](int error) {
    r->being_joined = false;  // a cancelled or timed-out join leaves the thread joinable
    me.joining = nullptr;
    return error;
  };
  scheduling_point(point_kind::join, r->done, {});
  while (!r->finished) {
    if (me.cancel_pending && me.cancel_enabled) {
      give_up(0);
      cancellation_point();
    }
    if (!blocking) return give_up(EBUSY);
    if (!deadline) {
      wait(r->done, {});  // a cancel of this thread signals it too
    } else if ((*deadline <= now() || wait_until(r->done, *deadline, {}) == wake_reason::timeout) && !r->finished) {
      return give_up(ETIMEDOUT);
    }
  }
  give_up(0);
  r->joined = true;
  heddle::hb_joined(r->op);  // everything the thread did happens before the join returns
  if (result != nullptr) *result = r->result;
  return 0;
}

}  // namespace

// A call outside control on a thread the iteration created: the exit path
// after main returned, whose atexit handlers and destructors run while the
// program's other threads stay stopped (fork_child.cpp, exit_program). Its
// handle is heddle's record, not the C library's thread: passed to the C
// library, it crashed there. libuv's destructor (uv_library_shutdown) tells
// its pool's threads to stop and joins them: every iteration of a correct
// libuv program ended in "crash: SIGSEGV ... in the exit path after main
// returned" (third-party audit, 2026-11-29). Such a thread never runs again
// in this process: a join returns at once (with its result, or
// PTHREAD_CANCELED if it had not finished), as do a detach, a cancel and a
// signal, which change nothing any more.
thread_record* stopped_thread(pthread_t thread) {
  if (controlled()) return nullptr;
  thread_table& t = last_threads();  // not threads(): control is off, and its sync would forget them
  auto* r = reinterpret_cast<thread_record*>(thread);
  return t.epoch != 0 && t.valid.contains(r) ? r : nullptr;
}

int join_stopped(const thread_record& r, void** result) {
  if (result != nullptr) *result = r.finished ? r.result : PTHREAD_CANCELED;
  return 0;
}

}  // namespace heddle::rt

HEDDLE_RT_DEFINE(int, pthread_join, (pthread_t thread, void** result)) {
  HEDDLE_CALL_SITE();
  if (const thread_record* r = heddle::rt::stopped_thread(thread)) return heddle::rt::join_stopped(*r, result);
  if (!controlled()) return HEDDLE_REAL(pthread_join)(thread, result);
  return heddle::rt::join("pthread_join", thread, result, true, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_tryjoin_np, (pthread_t thread, void** result)) {
  HEDDLE_CALL_SITE();
  if (const thread_record* r = heddle::rt::stopped_thread(thread)) return heddle::rt::join_stopped(*r, result);
  if (!controlled()) return HEDDLE_REAL(pthread_tryjoin_np)(thread, result);
  return heddle::rt::join("pthread_tryjoin_np", thread, result, false, std::nullopt);
}

HEDDLE_RT_DEFINE(int, pthread_timedjoin_np, (pthread_t thread, void** result, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (const thread_record* r = heddle::rt::stopped_thread(thread)) return heddle::rt::join_stopped(*r, result);
  if (!controlled()) return HEDDLE_REAL(pthread_timedjoin_np)(thread, result, abstime);
  if (abstime == nullptr) return heddle::rt::join("pthread_timedjoin_np", thread, result, true, std::nullopt);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::join("pthread_timedjoin_np", thread, result, true,
                          heddle::rt::deadline_at(CLOCK_REALTIME, *abstime));
}

HEDDLE_RT_DEFINE(int, pthread_clockjoin_np,
                 (pthread_t thread, void** result, clockid_t clock, const struct timespec* abstime)) {
  HEDDLE_CALL_SITE();
  if (const thread_record* r = heddle::rt::stopped_thread(thread)) return heddle::rt::join_stopped(*r, result);
  if (!controlled()) return HEDDLE_REAL(pthread_clockjoin_np)(thread, result, clock, abstime);
  if (abstime == nullptr) return heddle::rt::join("pthread_clockjoin_np", thread, result, true, std::nullopt);
  if (heddle::rt::invalid(*abstime)) return EINVAL;
  return heddle::rt::join("pthread_clockjoin_np", thread, result, true, heddle::rt::deadline_at(clock, *abstime));
}

HEDDLE_RT_DEFINE(int, pthread_detach, (pthread_t thread)) {
  if (heddle::rt::stopped_thread(thread) != nullptr) return 0;
  if (!controlled()) return HEDDLE_REAL(pthread_detach)(thread);
  thread_record* r = heddle::rt::find_thread(thread);
  if (r == nullptr || r->joined) return ESRCH;
  if (r->detached) return EINVAL;
  r->detached = true;
  return 0;
}

HEDDLE_RT_DEFINE(void, pthread_exit, (void* value)) {
  if (!controlled()) HEDDLE_REAL(pthread_exit)(value);
  heddle::rt::exit_thread(value);
}

HEDDLE_RT_DEFINE(pthread_t, pthread_self, ()) {
  if (!controlled()) return HEDDLE_REAL(pthread_self)();
  return reinterpret_cast<pthread_t>(&heddle::rt::self());
}

HEDDLE_RT_DEFINE(int, pthread_equal, (pthread_t a, pthread_t b)) { return a == b ? 1 : 0; }

// --- cancellation ------------------------------------------------------------

HEDDLE_RT_DEFINE(int, pthread_cancel, (pthread_t thread)) {
  if (heddle::rt::stopped_thread(thread) != nullptr) return 0;
  if (!controlled()) return HEDDLE_REAL(pthread_cancel)(thread);
  thread_record* r = heddle::rt::find_thread(thread);
  if (r == nullptr || r->finished) return ESRCH;
  heddle::scheduling_point(heddle::point_kind::signal, r->done, {});
  r->cancel_pending = true;
  // A thread blocked in a join, a condition wait or a semaphore wait wakes up
  // (a wake-up POSIX allows to be spurious for the other waiters) and acts on
  // the request. A sleeper acts on it when its sleep point returns.
  if (r->joining != nullptr) heddle::signal(r->joining->done);
  if (r->waiting_cond != nullptr) heddle::rt::wake_cond_waiters(r->waiting_cond);
  if (r->waiting_semaphore != nullptr) heddle::signal(*r->waiting_semaphore);
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_setcancelstate, (int state, int* old)) {
  if (!controlled()) return HEDDLE_REAL(pthread_setcancelstate)(state, old);
  if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE) return EINVAL;
  thread_record& me = heddle::rt::self();
  if (old != nullptr) *old = me.cancel_enabled ? PTHREAD_CANCEL_ENABLE : PTHREAD_CANCEL_DISABLE;
  me.cancel_enabled = state == PTHREAD_CANCEL_ENABLE;
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_setcanceltype, (int type, int* old)) {
  if (!controlled()) return HEDDLE_REAL(pthread_setcanceltype)(type, old);
  if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS) return EINVAL;
  thread_record& me = heddle::rt::self();
  if (old != nullptr) *old = me.cancel_async ? PTHREAD_CANCEL_ASYNCHRONOUS : PTHREAD_CANCEL_DEFERRED;
  me.cancel_async = type == PTHREAD_CANCEL_ASYNCHRONOUS;
  return 0;
}

HEDDLE_RT_DEFINE(void, pthread_testcancel, ()) {
  if (!controlled()) return HEDDLE_REAL(pthread_testcancel)();
  heddle::scheduling_point(heddle::point_kind::yield, std::source_location{});
  heddle::rt::cancellation_point();
}

// glibc's C form of pthread_cleanup_push/pop (no -fexceptions) registers each
// handler's unwind buffer with these.
extern "C" void __pthread_register_cancel(__pthread_unwind_buf_t* buf);
extern "C" void __pthread_unregister_cancel(__pthread_unwind_buf_t* buf);
extern "C" void __pthread_unwind_next(__pthread_unwind_buf_t* buf);

HEDDLE_RT_DEFINE(void, __pthread_register_cancel, (__pthread_unwind_buf_t * buf)) {
  if (!controlled()) return HEDDLE_REAL(__pthread_register_cancel)(buf);
  heddle::rt::self().c_cleanup.push_back(buf);
}

HEDDLE_RT_DEFINE(void, __pthread_unregister_cancel, (__pthread_unwind_buf_t * buf)) {
  if (!controlled()) return HEDDLE_REAL(__pthread_unregister_cancel)(buf);
  auto& stack = heddle::rt::self().c_cleanup;
  if (!stack.empty() && stack.back() == buf) stack.pop_back();
}

HEDDLE_RT_DEFINE(void, __pthread_unwind_next, (__pthread_unwind_buf_t * buf)) {
  if (!controlled()) HEDDLE_REAL(__pthread_unwind_next)(buf);
  heddle::rt::unwind_step(heddle::rt::self());
}

// --- calls that take a pthread_t ---------------------------------------------

HEDDLE_RT_DEFINE(int, pthread_setname_np, (pthread_t thread, const char* name)) {
  if (!controlled()) return HEDDLE_REAL(pthread_setname_np)(thread, name);
  thread_record* r = heddle::rt::find_thread(thread);
  if (r == nullptr) return ESRCH;
  if (std::strlen(name) > 15) return ERANGE;
  r->name = name;
  if (r == &heddle::rt::self()) heddle::set_operation_name(name);
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_getname_np, (pthread_t thread, char* name, size_t size)) {
  if (!controlled()) return HEDDLE_REAL(pthread_getname_np)(thread, name, size);
  thread_record* r = heddle::rt::find_thread(thread);
  if (r == nullptr) return ESRCH;
  if (size <= r->name.size()) return ERANGE;
  std::memcpy(name, r->name.c_str(), r->name.size() + 1);
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_getattr_np, (pthread_t thread, pthread_attr_t* attr)) {
  // Under control the attributes are those of the OS thread the operation
  // runs on (its stack, for a program that inspects it).
  if (!controlled()) return HEDDLE_REAL(pthread_getattr_np)(thread, attr);
  const thread_record* r = heddle::rt::find_thread(thread);
  if (r == nullptr) return HEDDLE_REAL(pthread_getattr_np)(thread, attr);
  const int error = HEDDLE_REAL(pthread_getattr_np)(HEDDLE_REAL(pthread_self)(), attr);
  // A thread the program started runs on a stack heddle made, with a guard
  // page below it (backends/stack_pool.hpp), but glibc reports no guard for a
  // stack its caller provided. Rust's standard library asserts a guard on
  // every thread it starts, and panics without one ("there is no guard page";
  // tests/pushbutton/thread_guard_page.c). The thread as it would be: a guard.
  std::size_t guard = 0;
  if (error == 0 && r->op != 1 && ::pthread_attr_getguardsize(attr, &guard) == 0 && guard == 0)
    ::pthread_attr_setguardsize(attr, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
  return error;
}

// Scheduling and affinity of a controlled thread: the operation runs where
// the backend puts it (the threads backend pins every operation to one CPU),
// so setting is accepted and ignored, and getting reads the caller's OS thread.
HEDDLE_RT_DEFINE(int, pthread_setaffinity_np, (pthread_t thread, size_t size, const cpu_set_t* set)) {
  if (controlled() && heddle::rt::find_thread(thread) != nullptr) return 0;
  return HEDDLE_REAL(pthread_setaffinity_np)(thread, size, set);
}

// The CPUs the program would have: the fork server pins itself and every
// iteration to one CPU (docs/pushbutton.md, "Set up once"), and a program that
// sizes its thread pool by its affinity (nproc, TBB's default arena, xz -T0,
// Rust's available_parallelism) read 1 and ran with one thread, so a run
// exercised no concurrency and passed. Under control, a controlled thread
// asking for its own or the process's affinity gets the mask the process had
// before heddle pinned it (remember_program_affinity).
namespace {
cpu_set_t program_affinity;
bool program_affinity_known = false;

int give_program_affinity(size_t size, cpu_set_t* set) {
  if (size == 0 || set == nullptr) {
    errno = EINVAL;
    return EINVAL;
  }
  std::memset(set, 0, size);
  std::memcpy(set, &program_affinity, std::min(size, sizeof program_affinity));
  return 0;
}
}  // namespace

namespace heddle::rt {
void remember_program_affinity() noexcept {
  program_affinity_known = ::sched_getaffinity(0, sizeof program_affinity, &program_affinity) == 0;
}
}  // namespace heddle::rt

HEDDLE_RT_DEFINE(int, pthread_getaffinity_np, (pthread_t thread, size_t size, cpu_set_t* set)) {
  if (controlled() && heddle::rt::find_thread(thread) != nullptr) {
    if (program_affinity_known) return give_program_affinity(size, set);
    return HEDDLE_REAL(pthread_getaffinity_np)(HEDDLE_REAL(pthread_self)(), size, set);
  }
  return HEDDLE_REAL(pthread_getaffinity_np)(thread, size, set);
}

HEDDLE_RT_DEFINE(int, sched_getaffinity, (pid_t pid, size_t size, cpu_set_t* set)) {
  if (controlled() && program_affinity_known && (pid == 0 || pid == ::getpid())) {
    const int error = give_program_affinity(size, set);
    return error == 0 ? 0 : -1;
  }
  return HEDDLE_REAL(sched_getaffinity)(pid, size, set);
}

HEDDLE_RT_DEFINE(int, pthread_setschedparam, (pthread_t thread, int policy, const struct sched_param* param)) {
  if (controlled() && heddle::rt::find_thread(thread) != nullptr) return 0;
  return HEDDLE_REAL(pthread_setschedparam)(thread, policy, param);
}

HEDDLE_RT_DEFINE(int, pthread_getschedparam, (pthread_t thread, int* policy, struct sched_param* param)) {
  if (controlled() && heddle::rt::find_thread(thread) != nullptr)
    return HEDDLE_REAL(pthread_getschedparam)(HEDDLE_REAL(pthread_self)(), policy, param);
  return HEDDLE_REAL(pthread_getschedparam)(thread, policy, param);
}

HEDDLE_RT_DEFINE(int, pthread_kill, (pthread_t thread, int sig)) {
  if (heddle::rt::stopped_thread(thread) != nullptr) return 0;
  if (!controlled()) return HEDDLE_REAL(pthread_kill)(thread, sig);
  thread_record* r = heddle::rt::find_thread(thread);
  if (r == nullptr || r->finished) return ESRCH;
  if (sig == 0) return 0;  // "does it exist?"
  return heddle::rt::send_signal_to_thread(r->op, sig);
}

// --- keys ----------------------------------------------------------------------
// The key itself is the C library's (unique, any context); its values belong
// to the operation under control. Operation 1 is the program's main thread,
// which may have set values before control began: it falls back to them.

HEDDLE_RT_DEFINE(int, pthread_key_create, (pthread_key_t * key, void (*destructor)(void*))) {
  const int rc = HEDDLE_REAL(pthread_key_create)(key, destructor);
  if (rc == 0 && *key < PTHREAD_KEYS_MAX)
    heddle::rt::key_destructors[*key].store(destructor, std::memory_order_release);
  return rc;
}

HEDDLE_RT_DEFINE(int, pthread_key_delete, (pthread_key_t key)) {
  if (key < PTHREAD_KEYS_MAX) heddle::rt::key_destructors[key].store(nullptr, std::memory_order_release);
  if (controlled()) heddle::rt::self().specific.erase(key);
  return HEDDLE_REAL(pthread_key_delete)(key);
}

HEDDLE_RT_DEFINE(void*, pthread_getspecific, (pthread_key_t key)) {
  if (!controlled()) return HEDDLE_REAL(pthread_getspecific)(key);
  thread_record& me = heddle::rt::self();
  if (const auto it = me.specific.find(key); it != me.specific.end()) return it->second;
  return me.op == 1 ? HEDDLE_REAL(pthread_getspecific)(key) : nullptr;
}

HEDDLE_RT_DEFINE(int, pthread_setspecific, (pthread_key_t key, const void* value)) {
  if (!controlled()) return HEDDLE_REAL(pthread_setspecific)(key, value);
  if (key >= PTHREAD_KEYS_MAX) return EINVAL;
  heddle::rt::self().specific[key] = const_cast<void*>(value);
  return 0;
}

// --- thread_local destructors --------------------------------------------------
// libstdc++'s __cxa_thread_atexit registers the destructor of each thread_local
// object a thread constructs here. glibc would keep it with the OS thread,
// which under control outlives the operation (a pool thread of the OS-thread
// backend, the one thread of the fibers backend): the operation keeps it and
// runs it when it exits. The program's main thread (operation 1) runs on the
// process's initial thread, whose destructors glibc runs in exit() as usual.

extern "C" int __cxa_thread_atexit_impl(void (*destructor)(void*), void* object, void* dso);

HEDDLE_RT_DEFINE(int, __cxa_thread_atexit_impl, (void (*destructor)(void*), void* object, void* dso)) {
  if (!controlled() || heddle::current_operation() == 1)
    return HEDDLE_REAL(__cxa_thread_atexit_impl)(destructor, object, dso);
  heddle::rt::self().thread_local_destructors.emplace_back(destructor, object);
  return 0;
}
