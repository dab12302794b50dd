// The semaphores: one resource each; acquire waits on it while the count is
// zero, release signals it (waiters re-check: Mesa semantics).
#include "heddle/semaphore.hpp"

#include <exception>
#include <string>
#include <utility>

namespace heddle::detail {

namespace {
// report_misuse throws to end the iteration; while an exception already
// propagates (a lock's destructor during unwinding) it cannot, so then the bug
// is recorded with flag_misuse and the caller returns.
void misuse(std::string message, std::source_location loc) {
  if (std::uncaught_exceptions() > 0) return flag_misuse(std::move(message), loc);
  report_misuse(std::move(message), loc);
}
}  // namespace

void semaphore_state::reset_if_stale() noexcept {
  if (resource_.stale()) count_ = initial_;
}

bool semaphore_state::acquire(bool blocking, std::optional<virtual_time> deadline, std::source_location loc) {
  reset_if_stale();
  scheduling_point(point_kind::acquire, resource_, loc);
  while (count_ == 0) {
    if (!blocking) return false;
    if (!deadline) {
      wait(resource_, loc);
      continue;
    }
    if (*deadline <= now() || wait_until(resource_, *deadline, loc) == wake_reason::timeout) {
      if (count_ == 0) return false;
    }
  }
  --count_;
  return true;
}

void semaphore_state::release(std::ptrdiff_t n, std::source_location loc) {
  reset_if_stale();
  scheduling_point(point_kind::signal, resource_, loc);
  if (!unwinding() && (n < 0 || n > max_ - count_)) {
    misuse("release(" + std::to_string(n) + ") of a heddle::counting_semaphore whose count is " +
                      std::to_string(count_) + " and max() is " + std::to_string(max_) +
                      (n < 0 ? " (a negative update)" : " (the count would exceed max())"),
           loc);
    return;
  }
  count_ += n;
  if (n > 0) signal(resource_);
}

}  // namespace heddle::detail
