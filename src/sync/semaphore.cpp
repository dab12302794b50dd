// The semaphores: one resource each; acquire waits on it while the count is
// zero, release signals it (waiters re-check: Mesa semantics).
#include "heddle/semaphore.hpp"

#include <exception>
#include <string>
#include <utility>

namespace heddle::detail {


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
  hb_acquire(resource_);
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
  hb_release(resource_);
  count_ += n;
  if (n > 0) signal(resource_);
}

}  // namespace heddle::detail
