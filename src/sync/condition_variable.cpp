// The condition variables' shared controlled part: a notify is a scheduling
// point (signal) that wakes the operations blocked on the resource when it
// runs; notify_one leaves the choice of the waiter to the strategy.
#include "heddle/condition_variable.hpp"

#include <exception>
#include <string>
#include <utility>

namespace heddle {

namespace detail {


bool condition_state::spurious_wakeup(std::source_location loc) {
  return spurious_wakeups_enabled() && choose_rare(point_kind::wait, resource_, loc);
}

cv_status condition_state::block(std::optional<virtual_time> deadline, std::source_location loc) {
  if (!deadline) {
    wait(resource_, loc);  // only a notify (signal) ends an untimed wait
    return cv_status::no_timeout;
  }
  if (*deadline <= now()) return cv_status::timeout;
  return wait_until(resource_, *deadline, loc) == wake_reason::timeout ? cv_status::timeout
                                                                       : cv_status::no_timeout;
}

void condition_state::notify_one(std::source_location loc) {
  scheduling_point(point_kind::signal, resource_, loc);
  signal_one(resource_);
}

void condition_state::notify_all(std::source_location loc) {
  scheduling_point(point_kind::signal, resource_, loc);
  broadcast(resource_);
}

void condition_state::check_no_waiters(std::string_view type) noexcept {
  if (!in_control() || unwinding()) return;
  if (const std::size_t n = waiter_count(resource_); n > 0)
    flag_misuse("destroying a " + std::string(type) + " while " + std::to_string(n) +
                " operation(s) wait on it (notify them first)");
}

void condition_state::not_held(std::string_view type, const std::string& why, std::source_location loc) {
  misuse("wait on a " + std::string(type) + " without holding its mutex: " + why +
                    " (std requires the waiter to hold the lock)",
                loc);
}

}  // namespace detail

condition_variable::~condition_variable() { state_.check_no_waiters(name); }

void condition_variable::notify_one(std::source_location loc) {
  if (!in_control()) return real_.notify_one();
  state_.notify_one(loc);
}

void condition_variable::notify_all(std::source_location loc) {
  if (!in_control()) return real_.notify_all();
  state_.notify_all(loc);
}

condition_variable_any::~condition_variable_any() { state_.check_no_waiters(name); }

void condition_variable_any::notify_one(std::source_location loc) {
  if (!in_control()) return real_.notify_one();
  state_.notify_one(loc);
}

void condition_variable_any::notify_all(std::source_location loc) {
  if (!in_control()) return real_.notify_all();
  state_.notify_all(loc);
}

}  // namespace heddle
