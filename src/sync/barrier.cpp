// heddle::barrier's controlled state: one resource; waiters block on it until
// the phase counter moves past their token, which the completing arrival does
// (after running the completion function) before it signals.
#include "heddle/barrier.hpp"

#include <exception>
#include <string>
#include <utility>

namespace heddle::detail {


void barrier_state::reset_if_stale() const noexcept {
  if (!resource_.stale()) return;
  expected_ = initial_;
  pending_ = initial_;
  phase_ = 0;
}

std::uint64_t barrier_state::arrive(std::ptrdiff_t n, bool drop, void (*complete)(void*), void* context,
                                    std::source_location loc) {
  reset_if_stale();
  scheduling_point(point_kind::signal, resource_, loc);
  if (!unwinding() && (n <= 0 || n > pending_)) {
    misuse(std::string(drop ? "arrive_and_drop()" : "arrive(" + std::to_string(n) + ")") +
                      " on a heddle::barrier whose current phase expects " + std::to_string(pending_) +
                      " more arrival(s) (std requires 0 < n <= the expected count)",
           loc);
    return phase_;
  }
  hb_release(resource_);
  if (drop) --expected_;
  pending_ -= n;
  const std::uint64_t phase = phase_;
  if (pending_ == 0) {
    hb_acquire(resource_);  // every arrival of the phase happens before the completion
    complete(context);
    hb_release(resource_);
    pending_ = expected_;
    ++phase_;
    signal(resource_);
  }
  return phase;
}

void barrier_state::wait(std::uint64_t phase, std::source_location loc) const {
  reset_if_stale();
  scheduling_point(point_kind::wait, resource_, loc);
  while (phase_ == phase) heddle::wait(resource_, loc);
  hb_acquire(resource_);
}

void barrier_state::check_no_waiters() const noexcept {
  if (in_control() && !unwinding() && waiter_count(resource_) > 0)
    flag_misuse("destroying a heddle::barrier while " + std::to_string(waiter_count(resource_)) +
                " operation(s) wait on it");
}

}  // namespace heddle::detail
