// The end of an iteration and the bugs that end it: reporting a bug, the
// unwind exception that takes each unfinished operation's stack down under
// control (so destructors run with models inert), the terminate safety net for
// an exception that meets a noexcept frame, and abandoning an operation that
// cannot be unwound. The scheduler's hot path is in engine.cpp; this file runs
// once per iteration, or once per bug.
#include <exception>
#include <mutex>

#include <cxxabi.h>

#include "engine/engine_internal.hpp"

namespace heddle::detail {

namespace {
std::terminate_handler previous_terminate = nullptr;

// The safety net for the points that do throw: if the unwind exception reaches
// a noexcept frame anyway (a join in a jthread's destructor), the runtime calls
// std::terminate with the stack intact. The operation is then abandoned,
// suspended for good, instead of ending the process. (The C++ runtime's
// per-thread exception state, eh_globals, is declared in fiber_backend.hpp.)
[[noreturn]] void on_terminate() {
  if (engine* e = engine::current(); e != nullptr && e->abort_in_flight()) {
    if (std::uncaught_exceptions() > 0) {
      // terminate was called while the exception unwound the stack (a
      // destructor that terminates, as std::thread's does when joinable): it
      // stays "uncaught" for good. The abandoned operation's stack is never
      // resumed, so it is forgotten, or every later scheduling point on this
      // OS thread would think an exception is propagating.
      --__cxa_get_globals()->uncaught_exceptions;
    } else {
      __cxa_end_catch();  // the runtime "caught" the exception to call terminate
    }
    e->abandon_running();
  }
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}
}  // namespace

void install_unwind_safety_net() {
  static std::once_flag installed;
  std::call_once(installed, [] { previous_terminate = std::set_terminate(&on_terminate); });
}

void engine::throw_abort() {
  ops_[running_record_].abort_in_flight = true;
  throw iteration_abort{};
}

void engine::abandon_running() {
  const std::uint32_t mine = running_record_;
  ops_[mine].abandoned = true;
  ops_[mine].abort_in_flight = false;
  set_running({});
  switch_to(mine, 0);
  std::abort();  // never resumed
}

void engine::unwind_after_resume() {
  if (std::uncaught_exceptions() == 0 && may_throw_at(ops_[running_record_].point)) throw_abort();
}

void engine::report(bug_kind kind, std::string message, const std::source_location& where,
                    bool unwind_now) {
  source_position position;
  if (where.line() != 0) position = {where.file_name(), where.line(), where.function_name()};
  report(kind, std::move(message), std::move(position), unwind_now);
}

void engine::report(bug_kind kind, std::string message, source_position where, bool unwind_now) {
  if (!outcome_.found && !unwinding_) {
    bug b;
    b.kind = kind;
    b.message = std::move(message);
    b.operation = running_;
    b.operation_name = running_ != 0 ? name_of(running_) : std::string{};
    b.where = std::move(where);
    b.step = outcome_.steps.size();
    outcome_.found = std::move(b);
  }
  end_soon();
  if (unwind_now && running_ != 0 && std::uncaught_exceptions() == 0) throw_abort();
}

void engine::unwind_all() {
  unwinding_ = true;
  if (unfinished_ == 0) return;  // nothing to unwind, nothing abandoned
  // By id, newest first: a record is unwound as the operation it runs now,
  // and its older ids (renew) are finished.
  for (operation_id id = op_count_ - 1; id >= 1; --id) {
    operation& op = record_of(id);
    if (op.id != id || op.status == op_status::finished || op.abandoned) continue;
    if (!op.started) {
      starts_[op.start].body = nullptr;  // its captures are destroyed here, with models inert
      op.status = op_status::finished;
      --unfinished_;
      unlist_enabled(id);
      continue;
    }
    if (op.status == op_status::blocked) wake(op, 0, wake_reason::signaled);
    op.unwind_requested = true;
    set_running({id, op.record});
    switch_to(0, op.record);  // returns when it has finished or was abandoned
    set_running({});
  }
  for (std::uint32_t r = 1; r < record_count_; ++r)
    if (ops_[r].abandoned) backend_.abandon(r);
}

}  // namespace heddle::detail
