// heddle::thread: a thread is an operation; join waits for its completion.
#include "heddle/thread.hpp"

#include <cstdio>
#include <exception>

namespace heddle {

namespace {
void misuse_outside_control(const char* what) {
  std::fprintf(stderr, "heddle: %s\n", what);
  std::terminate();
}
}  // namespace

thread& thread::operator=(thread&& other) noexcept {
  if (joinable()) {
    if (in_control()) {
      if (!unwinding()) flag_misuse("assigning to a heddle::thread that is still joinable (std::terminate in std)");
    } else {
      misuse_outside_control("assigning to a joinable thread");
    }
  }
  op_ = std::exchange(other.op_, 0);
  real_ = std::move(other.real_);
  return *this;
}

thread::~thread() {
  if (op_ != 0 && in_control()) {
    if (!unwinding())
      flag_misuse("destroying a heddle::thread that is still joinable: join() or detach() it first "
                  "(std::terminate in std)");
  } else if (op_ != 0) {
    // Created under control, destroyed after the iteration: nothing to join.
  }
  if (real_.joinable()) misuse_outside_control("destroying a joinable thread (std::terminate)");
}

void thread::join(std::source_location loc) {
  if (op_ != 0) {
    if (!in_control()) {
      op_ = 0;  // the iteration that ran it is over
      return;
    }
    if (op_ == current_operation()) report_misuse("a thread joins itself (resource_deadlock_would_occur in std)", loc);
    const operation_id target = std::exchange(op_, 0);
    heddle::join(target, loc);
    return;
  }
  if (real_.joinable()) {
    real_.join();
    return;
  }
  if (in_control()) report_misuse("join() of a thread that is not joinable (already joined, detached, or empty)", loc);
  throw std::system_error(std::make_error_code(std::errc::invalid_argument), "thread::join");
}

void thread::detach() {
  if (op_ != 0) {
    op_ = 0;
    return;
  }
  if (real_.joinable()) {
    real_.detach();
    return;
  }
  if (in_control()) report_misuse("detach() of a thread that is not joinable");
  throw std::system_error(std::make_error_code(std::errc::invalid_argument), "thread::detach");
}

namespace this_thread {
thread::id get_id() noexcept {
  const operation_id op = current_operation();
  return op != 0 ? thread::id(op) : thread::id(std::this_thread::get_id());
}
void set_name(std::string name) { set_operation_name(std::move(name)); }
}  // namespace this_thread

}  // namespace heddle
