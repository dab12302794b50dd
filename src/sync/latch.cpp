// heddle::latch: one resource; wait blocks on it while the counter is above
// zero, the count_down that reaches zero signals it.
#include "heddle/latch.hpp"

#include <exception>
#include <string>
#include <utility>

namespace heddle {


void latch::reset_if_stale() const noexcept {
  if (resource_.stale()) counter_ = initial_;
}

latch::~latch() {
  if (in_control() && !unwinding() && waiter_count(resource_) > 0)
    flag_misuse("destroying a heddle::latch while " + std::to_string(waiter_count(resource_)) +
                " operation(s) wait on it");
}

void latch::count_down(std::ptrdiff_t n, std::source_location loc) {
  if (!in_control()) return real_.count_down(n);
  reset_if_stale();
  scheduling_point(point_kind::signal, resource_, loc);
  if (!unwinding() && (n < 0 || n > counter_)) {
    misuse("count_down(" + std::to_string(n) + ") of a heddle::latch whose counter is " +
                      std::to_string(counter_) + " (std requires 0 <= n <= counter)",
           loc);
    return;
  }
  hb_release(resource_);
  counter_ -= n;
  if (counter_ == 0 && n > 0) signal(resource_);
}

bool latch::try_wait(std::source_location loc) const {
  if (!in_control()) return real_.try_wait();
  reset_if_stale();
  scheduling_point(point_kind::read, resource_, loc);
  if (counter_ != 0) return false;
  hb_acquire(resource_);
  return true;
}

void latch::wait(std::source_location loc) const {
  if (!in_control()) return real_.wait();
  reset_if_stale();
  scheduling_point(point_kind::wait, resource_, loc);
  while (counter_ != 0) heddle::wait(resource_, loc);
  hb_acquire(resource_);
}

void latch::arrive_and_wait(std::ptrdiff_t n, std::source_location loc) {
  if (!in_control()) return real_.arrive_and_wait(n);
  count_down(n, loc);
  wait(loc);
}

}  // namespace heddle
