// The model API of heddle/model.hpp: thin forwarding to the engine running on
// this OS thread. Outside an iteration every call is a cheap no-op.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <typeinfo>

#include <cxxabi.h>
#include <unwind.h>

#include "backends/fiber_backend.hpp"  // eh_globals, __cxa_get_globals
#include "engine/engine.hpp"
#include "engine/instrumented_code.hpp"
#include "engine/weak_memory.hpp"
#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/model.hpp"

#if defined(__GLIBCXX__) && (!defined(_GLIBCXX_RELEASE) || _GLIBCXX_RELEASE < 14)
// libstdc++ exports it (CXXABI_1.3.11) and declares it in <cxxabi.h> only from
// GCC 14: it fills in the exception header as __cxa_throw does, and returns it.
extern "C" void* __cxa_init_primary_exception(void* object, std::type_info* type, void (*destructor)(void*)) noexcept;
#endif

namespace heddle {

using detail::engine;

namespace {
engine* controlling() noexcept {
  engine* e = engine::current();
  return e != nullptr && e->running() != 0 ? e : nullptr;
}

// engine::report(..., unwind_now = true) for a caller that throws the unwind
// exception itself when this returns true: it then starts in the model API's
// caller's frame (throw_unwind_exception_as_tail_call), and the unwinder walks
// (twice: search, then cleanup) five frames fewer than from inside the engine.
// False: it cannot throw now (outside an operation, or while an exception
// propagates).
bool report_to_unwind(engine& e, bug_kind kind, std::string message, const std::source_location& loc) {
  e.report(kind, std::move(message), loc, false);
  if (e.running() == 0 || std::uncaught_exceptions() != 0) return false;
  // As engine::throw_abort(): the terminate safety net (unwinding.cpp)
  // abandons the operation if the exception meets a noexcept frame.
  const_cast<detail::operation&>(e.operation_at(e.running())).abort_in_flight = true;
  return true;
}

[[noreturn]] void die_outside_control(const char* what, const std::string& message,
                                      const std::source_location& loc) {
  std::fprintf(stderr, "heddle: %s: %s (at %s:%u)\n", what, message.c_str(), loc.file_name(),
               static_cast<unsigned>(loc.line()));
  std::abort();
}

// The part of assertion_failed, report_bug and report_misuse before the throw:
// records the bug; outside control prints and aborts (`what`, or the kind's
// name); where the unwind exception cannot be thrown (one propagates already)
// the operation cannot go on: std::terminate, whose safety net abandons it.
// `loc` by value: a parameter whose address is taken rules out the tail call.
[[gnu::noinline]] void record_before_unwind(bug_kind kind, const char* what, std::string& message,
                                            std::source_location loc) {
  engine* e = controlling();
  if (e == nullptr) die_outside_control(what != nullptr ? what : std::string(to_string(kind)).c_str(), message, loc);
  if (!report_to_unwind(*e, kind, std::move(message), loc)) std::terminate();
}

// Throws the unwind exception as a sibling call, the last thing its caller
// does, and without __cxa_throw's frame: the caller's frame is gone when the
// unwinder starts, so the search starts in the frame that called the model
// API, and the unwinder walks two frames fewer, twice (search, then cleanup):
// about 7,000 instructions on the bug path (issue 14). It does what
// __cxa_throw does (the Itanium C++ ABI's steps on libstdc++'s exception
// header) except the std::terminate after a search that finds no handler:
// there is always one, engine::operation_entry's catch (...), below every
// frame of an operation. Only a frame without unwind tables in between could
// hide it (then __cxa_throw would terminate, and this returns into the caller
// of a [[noreturn]] function); an exception of the test's own would not get
// through such a frame either. Without optimization the call is an ordinary
// one: the same exception, one frame more.
inline void throw_unwind_exception_as_tail_call() {
#if !defined(__GLIBCXX__)
  throw detail::iteration_abort{};  // another C++ runtime: its exception header is its own
#else
  void* object = __cxxabiv1::__cxa_allocate_exception(sizeof(detail::iteration_abort));
  ::new (object) detail::iteration_abort{};
  ++__cxa_get_globals()->uncaught_exceptions;
  void* header = static_cast<void*>(__cxa_init_primary_exception(
      object, const_cast<std::type_info*>(&typeid(detail::iteration_abort)), nullptr));
  *static_cast<int*>(header) = 1;  // the reference count, first in the header; __cxa_end_catch frees at 0
  // The unwinder's part of the header ends where the object starts.
  _Unwind_RaiseException(static_cast<_Unwind_Exception*>(object) - 1);
#endif
}
}  // namespace

// assertion_failed, report_bug and report_misuse are these three under their
// public names (aliases, below): a function declared [[noreturn]] is never
// compiled with a tail call, and these must end in one.
extern "C" {
[[gnu::visibility("hidden")]] void heddle_assertion_failed_tail(std::string message, std::source_location loc) {
  record_before_unwind(bug_kind::assertion, "assertion failed", message, loc);
  throw_unwind_exception_as_tail_call();
}
[[gnu::visibility("hidden")]] void heddle_report_bug_tail(bug_kind kind, std::string message, std::source_location loc) {
  record_before_unwind(kind, nullptr, message, loc);
  throw_unwind_exception_as_tail_call();
}
[[gnu::visibility("hidden")]] void heddle_report_misuse_tail(std::string message, std::source_location loc) {
  record_before_unwind(bug_kind::api_misuse, "API misuse", message, loc);
  throw_unwind_exception_as_tail_call();
}
}

object_id resource::attach() const {
  engine* e = engine::current();
  if (e == nullptr) return 0;
  epoch_ = e->epoch();
  id_ = e->register_object(kind_);
  return id_;
}

wake_reason wait_until(const resource& r, virtual_time deadline, std::source_location loc) {
  engine* e = controlling();
  if (e == nullptr) return wake_reason::timeout;
  const object_id ids[] = {r.id()};
  return e->wait(ids, detail::wait_mode::one, deadline, point_kind::wait, loc);
}

void wait_all(std::span<const resource* const> rs, std::source_location loc) {
  engine* e = controlling();
  if (e == nullptr) return;
  std::vector<object_id> ids;
  ids.reserve(rs.size());
  for (const resource* r : rs) ids.push_back(r->id());
  e->wait(ids, detail::wait_mode::all, std::nullopt, point_kind::wait, loc);
}

std::size_t wait_any(std::span<const resource* const> rs, std::source_location loc) {
  engine* e = controlling();
  if (e == nullptr || rs.empty()) return 0;
  std::vector<object_id> ids;
  ids.reserve(rs.size());
  for (const resource* r : rs) ids.push_back(r->id());
  e->wait(ids, detail::wait_mode::any, std::nullopt, point_kind::wait, loc);
  const object_id by = e->woken_by();
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == by) return i;
  return 0;
}

void detail::signal_waiters(object_id object) {
  if (engine* e = engine::current()) e->signal_waiters(object);
}

bool signal_one(const resource& r) {
  engine* e = engine::current();
  return e != nullptr && e->signal_one(r.id());
}

void broadcast(const resource& r) {
  if (engine* e = engine::current()) e->broadcast(r.id());
}

std::size_t waiter_count(const resource& r) {
  engine* e = engine::current();
  return e != nullptr && !r.stale() ? e->object(r.id()).waiters.size() : 0;
}

operation_id spawn(std::function<void()> body, std::string name, relation rel, operation_id of) {
  engine* e = engine::current();
  if (e == nullptr) return 0;
  const operation_id child = e->spawn(std::move(body), std::move(name), rel, of);
  if (detail::hb != nullptr && e->running() != 0) detail::hb->spawned(child);
  if (detail::control.weak_memory) detail::wm_spawned(child);
  return child;
}

void join(operation_id op, std::source_location loc) {
  engine* e = controlling();
  if (e == nullptr) return;
  e->join(op, loc);
  if (detail::hb != nullptr) detail::hb->joined(op);
  if (detail::control.weak_memory) detail::wm_joined(op);
}

bool finished(operation_id op) {
  const engine* e = engine::current();
  return e == nullptr || e->finished(op);
}

void set_operation_name(std::string name) {
  if (engine* e = controlling()) e->set_name(std::move(name));
}

virtual_time now() noexcept {
  const engine* e = engine::current();
  return e != nullptr ? e->now() : 0;
}

void sleep_until(virtual_time t, std::source_location loc) {
  if (engine* e = controlling()) e->sleep_until(t, loc);
}

bool choose_bool(std::source_location loc) {
  engine* e = controlling();
  return e != nullptr && e->choose({step_kind::choose_bool, 2, false, point_kind::choose, 0}, loc) != 0;
}

std::uint64_t choose_int(std::uint64_t n, std::source_location loc) {
  engine* e = controlling();
  if (e == nullptr || n <= 1) return 0;
  return e->choose({step_kind::choose_int, n, false, point_kind::choose, 0}, loc);
}

bool choose_rare(point_kind kind, const resource& object, std::source_location loc) {
  engine* e = controlling();
  return e != nullptr && e->choose({step_kind::choose_bool, 2, true, kind, object.id()}, loc) != 0;
}

void state_hash(std::uint64_t value) noexcept {
  if (engine* e = controlling()) e->set_state_hash(value);
}

// Under rc11 heddle::atomic explores what weaker orders allow (weak_memory.cpp),
// so only an sc run narrows its verdict here; push-button atomics
// (rt/tsan_runtime.cpp) run as seq_cst under either model and note it there.
// Under rc11 the iteration notes that it relied on weaker orders: without
// instrumented code, the plain memory they order is not seen.
void detail::note_weak_order() noexcept {
  engine* e = engine::current();
  if (e == nullptr || e->running() == 0) return;
  if (e->config().memory_model == heddle::memory_model::sc) e->note_weak_order();
  else e->note_relaxed_atomics();
}

namespace {
std::atomic<bool> instrumented_code_started{false};
}  // namespace

void detail::note_instrumented_code() noexcept { instrumented_code_started.store(true, std::memory_order_relaxed); }
bool detail::instrumented_code() noexcept { return instrumented_code_started.load(std::memory_order_relaxed); }

void detail::note_value_seen(std::uint64_t bits, value_kind kind) noexcept {
  if (engine* e = engine::current()) e->note_value_seen(bits, kind);
}

void detail::note_compare_exchange(std::uint64_t seen, std::uint64_t expected, value_kind kind,
                                   bool succeeded) noexcept {
  if (engine* e = engine::current()) e->note_compare_exchange(seen, expected, kind, succeeded);
}

bool spurious_wakeups_enabled() noexcept {
  const engine* e = engine::current();
  return e != nullptr && e->config().spurious_wakeups;
}

bool spurious_cas_failures_enabled() noexcept {
  const engine* e = engine::current();
  return e != nullptr && e->config().spurious_cas_failures;
}

bool is_unwind_exception(const std::exception_ptr& e) noexcept {
  if (!e) return false;
  try {
    std::rethrow_exception(e);
  } catch (const detail::iteration_abort&) {
    return true;
  } catch (...) {
    return false;
  }
}

// The exception is thrown here, not in the engine: fewer frames to unwind.
void report_misuse(std::string message, std::source_location loc) __attribute__((alias("heddle_report_misuse_tail")));

void misuse(std::string message, std::source_location loc) {
  if (std::uncaught_exceptions() > 0) return flag_misuse(std::move(message), loc);
  report_misuse(std::move(message), loc);
}

void flag_misuse(std::string message, std::source_location loc) {
  engine* e = engine::current();
  if (e == nullptr) die_outside_control("API misuse", message, loc);
  e->report(bug_kind::api_misuse, std::move(message), loc, false);
}

void report_bug(bug_kind kind, std::string message, std::source_location loc) __attribute__((alias("heddle_report_bug_tail")));

void flag_bug(bug_kind kind, std::string message, std::source_location loc) {
  engine* e = engine::current();
  if (e == nullptr) die_outside_control(std::string(to_string(kind)).c_str(), message, loc);
  e->report(kind, std::move(message), loc, false);
}

void assertion_failed(std::string message, std::source_location loc) __attribute__((alias("heddle_assertion_failed_tail")));

}  // namespace heddle
