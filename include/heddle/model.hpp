// The engine API that models are written against.
//
// heddle's own models of std primitives (src/sync, the templates in this folder)
// use nothing but this header, and so can a user who models a primitive of their
// own, as with Nekara: a model owns one or more `resource`s, announces each
// visible action as a scheduling point, blocks the running operation on resources
// and signals them. The engine guarantees that exactly one operation runs at a
// time and that control moves only inside these calls.
//
// Every function here is cheap to call outside a controlled iteration:
// `in_control()` is false and models then fall back to std behaviour.
#pragma once

#include <cstdint>
#include <utility>
#include <type_traits>
#include <new>
#include <cstddef>
#include <exception>
#include <functional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// Model code inlined from heddle's headers into a program built with
// -fsanitize=thread must not be instrumented: its loads and stores are heddle's
// bookkeeping, not the program's, and would be reported as data races and
// become memory scheduling points. GCC and Clang do not inline a function with
// this attribute into instrumented code (it stays one call there); everywhere
// else it inlines as usual.
#define HEDDLE_MODEL_INLINE __attribute__((no_sanitize("thread")))

namespace heddle {

// What an operation is about to do at a scheduling point.
enum class point_kind : std::uint8_t {
  start,           // a new operation's first step
  finish,          // an operation has returned
  join,            // waits for an operation to finish
  acquire,         // exclusive lock
  release,         // exclusive unlock
  acquire_shared,  // shared lock
  release_shared,  // shared unlock
  wait,            // blocks on a resource (condition, semaphore, latch, future...)
  signal,          // wakes waiters (notify, post, set_value...)
  read,            // atomic or modelled load
  write,           // atomic or modelled store
  rmw,             // read-modify-write (exchange, fetch_add, compare_exchange...)
  fence,           // atomic_thread_fence
  yield,           // this_thread::yield or an explicit point
  sleep,           // sleep_for / sleep_until on virtual time
  choose,          // a data choice (choose_bool, choose_int)
  send,            // actor or channel send
  receive,         // actor or channel receive
  user,            // a point a user-written model declares
};
std::string_view to_string(point_kind kind) noexcept;

// What kind of object a resource is; used in messages ("mutex #1").
enum class object_kind : std::uint8_t {
  none,
  operation,
  mutex,
  shared_mutex,
  condition_variable,
  semaphore,
  latch,
  barrier,
  atomic,
  once_flag,
  future,
  stop_state,
  variable,
  user,
  task,     // a coroutine task's completion (src/runtime, tasks)
  channel,  // an async channel or async lock of the task runtime
  inbox,    // an actor's inbox (src/runtime, actors)
  timer,    // a task delay or actor timer on virtual time
  monitor,  // a safety or liveness monitor
};
std::string_view to_string(object_kind kind) noexcept;

// Identity of an operation within an iteration: 1 is the test body, then
// first-creation order. 0 means "none".
using operation_id = std::uint32_t;
// Identity of an object within an iteration: first-use order from 1; 0 means "none".
using object_id = std::uint32_t;

namespace detail {
// An object of the running iteration as the engine keeps it. Its layout is
// here, not in the engine, so that the models' most frequent questions (who
// owns this mutex, does anybody wait for it) are answered inline.
struct object_state {
  object_kind kind = object_kind::none;
  operation_id owner = 0;
  std::vector<operation_id> waiters;  // invariant: each waiter has this id in its waiting_on
};

// How the 64 bits of a value an atomic operation saw read in a report
// (engine/engine.hpp's step_record, engine/names.hpp's value_text): an
// integer, a pointer, a floating-point number (as a double's bits), or the raw
// bytes of another trivially copyable type of at most 8 bytes.
enum class value_kind : std::uint8_t { none, boolean, signed_integer, unsigned_integer, pointer, floating, bits };

// The controlled iteration as this OS thread sees it, kept current by the
// engine, so that the questions models ask on every call (am I under control,
// who runs, is this resource from this iteration) are a load, not a call.
struct control_block {
  void* engine = nullptr;    // the engine running on this thread, or null
  std::uint32_t epoch = 0;   // the running iteration's number; 0 outside control
  operation_id running = 0;  // the running operation; 0 is the scheduler
  bool unwinding = false;    // the engine is unwinding the iteration's operations
  // The engine's object table (index = object id), valid while `engine` is set.
  object_state* objects = nullptr;
  // The iteration runs under memory_model::rc11: atomics and the happens-before
  // hooks below keep store histories and views (engine/weak_memory.hpp).
  bool weak_memory = false;
};
inline thread_local control_block control;

// The engine's side of signal() when somebody waits (engine.cpp).
void signal_waiters(object_id object);

// resource::set_owner and heddle::signal for a model that holds the id of a
// resource registered in the running iteration already (its hot path).
HEDDLE_MODEL_INLINE inline void set_owner(object_id object, operation_id op) noexcept { control.objects[object].owner = op; }
HEDDLE_MODEL_INLINE inline void signal(object_id object) {
  if (!control.objects[object].waiters.empty()) [[unlikely]] signal_waiters(object);
}
}  // namespace detail

// A thing operations can wait for. Cheap to construct; registered with the
// engine on first use in each iteration, which assigns its id, so ids are
// stable across runs regardless of addresses. Not copyable: its identity is
// its address for the duration of an iteration.
class resource {
 public:
  constexpr explicit resource(object_kind kind = object_kind::user) noexcept : kind_(kind) {}
  resource(const resource&) = delete;
  resource& operator=(const resource&) = delete;

  // This resource's id in the running iteration (registers it on first use).
  HEDDLE_MODEL_INLINE object_id id() const { return epoch_ == detail::control.epoch && epoch_ != 0 ? id_ : attach(); }
  // True when the resource was registered in an earlier iteration (or never):
  // a model holding controlled state should reset that state first.
  HEDDLE_MODEL_INLINE bool stale() const noexcept { return epoch_ != detail::control.epoch || epoch_ == 0; }
  object_kind kind() const noexcept { return kind_; }

  // The operation that holds this resource, if the model knows one; used in
  // deadlock messages ("held by operation 1 (main)").
  HEDDLE_MODEL_INLINE void set_owner(operation_id op) const {
    if (detail::control.engine != nullptr) detail::set_owner(id(), op);
  }
  HEDDLE_MODEL_INLINE operation_id owner() const {
    return detail::control.engine != nullptr && !stale() ? detail::control.objects[id_].owner : 0;
  }

 private:
  object_id attach() const;
  object_kind kind_;
  mutable std::uint32_t epoch_ = 0;
  mutable object_id id_ = 0;
};

// How a wait ended.
enum class wake_reason : std::uint8_t { signaled, timeout };

// Relation of a new operation to existing ones (DESIGN.md section 4).
enum class relation : std::uint8_t { spawn, continuation };

// Virtual time in nanoseconds since the start of the iteration.
using virtual_time = std::int64_t;

// True inside a controlled iteration.
HEDDLE_MODEL_INLINE inline bool in_control() noexcept { return detail::control.engine != nullptr; }

// The running operation (0 outside control).
HEDDLE_MODEL_INLINE inline operation_id current_operation() noexcept { return detail::control.running; }

namespace detail {
// The engine's side of a scheduling point (engine.cpp): the running operation
// of the engine on this thread announces `kind` on `object` (0: none);
// `lock`: it is a lock_point().
void point(point_kind kind, object_id object, std::source_location loc, bool lock = false);
}  // namespace detail

// A scheduling point: the running operation announces what it is about to do;
// the strategy may let another operation run first. Returns when the running
// operation is chosen again. Inline, so that a model's point is one call into
// the engine: every frame between a model and the fiber switch is returned
// through after each switch, where the return predictor has nothing to go on.
HEDDLE_MODEL_INLINE inline void scheduling_point(point_kind kind, const resource& object,
                             std::source_location loc = std::source_location::current()) {
  if (detail::control.running != 0) detail::point(kind, object.id(), loc);
}
HEDDLE_MODEL_INLINE inline void scheduling_point(point_kind kind, std::source_location loc = std::source_location::current()) {
  if (detail::control.running != 0) detail::point(kind, 0, loc);
}

// The scheduling point before a blocking lock of `r` (an acquire point). While
// another operation owns `r` (resource::set_owner), the running operation is
// not offered to the strategy: choosing it would only see it block (CHESS's
// rule). Use it only where the model then blocks exactly while r has another
// owner; a try-lock or a timed lock, which would fail or time out instead,
// announces an ordinary scheduling_point(point_kind::acquire, r).
HEDDLE_MODEL_INLINE inline void lock_point(const resource& r, std::source_location loc = std::source_location::current()) {
  if (detail::control.running != 0) detail::point(point_kind::acquire, r.id(), loc, true);
}

// Blocks the running operation until `r` is signalled (or, with a deadline, until
// the strategy lets the deadline pass). Models re-check their own condition after
// it returns: wake-ups follow Mesa semantics.
namespace detail {
wake_reason wait_one(object_id object, std::source_location loc);  // engine.cpp
}  // namespace detail
HEDDLE_MODEL_INLINE inline wake_reason wait(const resource& r, std::source_location loc = std::source_location::current()) {
  if (detail::control.running == 0) return wake_reason::signaled;
  return detail::wait_one(r.id(), loc);
}
wake_reason wait_until(const resource& r, virtual_time deadline,
                       std::source_location loc = std::source_location::current());
// Blocks until every one of `rs` has been signalled since the call.
void wait_all(std::span<const resource* const> rs,
              std::source_location loc = std::source_location::current());
// Blocks until any one of `rs` is signalled; returns its index in `rs`.
std::size_t wait_any(std::span<const resource* const> rs,
                     std::source_location loc = std::source_location::current());

// Re-enables every operation waiting on `r`. Inline: most signals find nobody
// waiting (an unlock nobody contends), and that is one load.
HEDDLE_MODEL_INLINE inline void signal(const resource& r) {
  if (detail::control.engine != nullptr) detail::signal(r.id());
}
// Re-enables one waiter of `r`, chosen by the strategy when there are several
// (a recorded choice). Returns false when nobody waits.
bool signal_one(const resource& r);
// A notify_all: wakes every operation waiting on `r`, as signal() does, and
// the step's row in a report names each one it woke (or that none waited).
void broadcast(const resource& r);
// Number of operations waiting on `r`.
std::size_t waiter_count(const resource& r);

// Operations. `body` runs as a new operation; it is enabled at once and starts
// when the strategy first chooses it. The returned id can be joined.
operation_id spawn(std::function<void()> body, std::string name = {},
                   relation rel = relation::spawn, operation_id of = 0);
// Blocks until operation `op` has finished.
void join(operation_id op, std::source_location loc = std::source_location::current());
bool finished(operation_id op);
void set_operation_name(std::string name);

// Virtual clock.
virtual_time now() noexcept;
// Sleeps on virtual time; the strategy decides when the sleeper runs again.
void sleep_until(virtual_time t, std::source_location loc = std::source_location::current());

// Data choices: decided by the strategy, recorded in the trace.
bool choose_bool(std::source_location loc = std::source_location::current());
std::uint64_t choose_int(std::uint64_t n, std::source_location loc = std::source_location::current());
// A rare event (a spurious wake-up, a spurious compare-exchange failure): a
// data choice that random strategies take with low probability.
bool choose_rare(point_kind kind, const resource& object,
                 std::source_location loc = std::source_location::current());
// Tells learning strategies (ql) the current state of the data under test, as
// a hash (e.g. of a queue's contents). Each call replaces the previous value, so
// two schedules that reach the same data state get the same fingerprint.
void state_hash(std::uint64_t value) noexcept;
bool spurious_wakeups_enabled() noexcept;
bool spurious_cas_failures_enabled() noexcept;

// Reports API misuse ("unlock of a mutex not owned by the caller") and ends the
// iteration by unwinding the running operation; outside control, prints the
// message and calls std::abort.
[[noreturn]] void report_misuse(std::string message,
                                std::source_location loc = std::source_location::current());
// The same for places that must not throw (destructors): records the bug and
// returns; the iteration ends at the running operation's next scheduling point.
void flag_misuse(std::string message, std::source_location loc = std::source_location::current());
// Either of the two, whichever is possible: report_misuse, unless an exception
// is already propagating (a lock guard's destructor while the iteration is
// being unwound), in which case flag_misuse and return. The caller must cope
// with returning.
void misuse(std::string message, std::source_location loc = std::source_location::current());
// True for the exception the engine throws to end an iteration. A model that
// catches everything (to store a callable's exception in a future, say) must
// rethrow this one.
bool is_unwind_exception(const std::exception_ptr& e) noexcept;

// Happens-before edges for a race detector (libheddle-rt installs one for
// programs built with -fsanitize=thread; nothing does otherwise). A model
// calls hb_release where it publishes its effects (unlock, post, notify of
// completion, a release store) and hb_acquire where it observes another
// operation's (lock, wait returning, an acquire load), after the operation's
// scheduling point. Shared variants keep readers of a reader-writer lock
// unordered among themselves. Without a detector each call is one load and a
// branch.
namespace detail {
struct hb_listener {
  virtual void acquire(object_id object, bool shared) = 0;
  virtual void release(object_id object, bool shared) = 0;
  virtual void spawned(operation_id child) = 0;  // the running operation created `child`
  virtual void joined(operation_id child) = 0;   // the running operation saw `child` finish

 protected:
  ~hb_listener() = default;
};
inline hb_listener* hb = nullptr;
// The same edges for the rc11 memory model's views (weak_memory.cpp): what the
// releasing operation has seen of every atomic becomes visible to the acquirer.
void wm_acquire(object_id object);
void wm_release(object_id object);
void wm_joined(operation_id child);
}  // namespace detail
HEDDLE_MODEL_INLINE inline void hb_acquire(const resource& r) {
  if (detail::hb != nullptr && detail::control.running != 0) [[unlikely]] detail::hb->acquire(r.id(), false);
  if (detail::control.weak_memory && detail::control.running != 0) [[unlikely]] detail::wm_acquire(r.id());
}
HEDDLE_MODEL_INLINE inline void hb_release(const resource& r) {
  if (detail::hb != nullptr && detail::control.running != 0) [[unlikely]] detail::hb->release(r.id(), false);
  if (detail::control.weak_memory && detail::control.running != 0) [[unlikely]] detail::wm_release(r.id());
}
HEDDLE_MODEL_INLINE inline void hb_acquire_shared(const resource& r) {
  if (detail::hb != nullptr && detail::control.running != 0) [[unlikely]] detail::hb->acquire(r.id(), true);
  if (detail::control.weak_memory && detail::control.running != 0) [[unlikely]] detail::wm_acquire(r.id());
}
HEDDLE_MODEL_INLINE inline void hb_release_shared(const resource& r) {
  if (detail::hb != nullptr && detail::control.running != 0) [[unlikely]] detail::hb->release(r.id(), true);
  if (detail::control.weak_memory && detail::control.running != 0) [[unlikely]] detail::wm_release(r.id());
}
// The running operation saw operation `op` finish (heddle::join does this
// itself; a model that waits for completion otherwise calls it).
HEDDLE_MODEL_INLINE inline void hb_joined(operation_id op) {
  if (detail::hb != nullptr && detail::control.running != 0) [[unlikely]] detail::hb->joined(op);
  if (detail::control.weak_memory && detail::control.running != 0) [[unlikely]] detail::wm_joined(op);
}

// True while the engine unwinds an iteration: models must skip misuse checks
// (the first bug wins) and must not block.
HEDDLE_MODEL_INLINE inline bool unwinding() noexcept { return detail::control.unwinding; }

}  // namespace heddle
