// heddle::call_once under control: a three-state flag (unset, running, done)
// and one resource that waiters block on while another operation runs the
// callable.
#include <string>

#include "heddle/once.hpp"

namespace heddle::detail {

bool once_begin(once_flag& flag, std::source_location loc) {
  if (flag.resource_.stale()) {
    flag.state_ = once_flag::state::unset;
    flag.runner_ = 0;
  }
  scheduling_point(point_kind::acquire, flag.resource_, loc);
  const operation_id me = current_operation();
  if (flag.state_ == once_flag::state::running && flag.runner_ == me && !unwinding())
    report_misuse("call_once on a heddle::once_flag from inside its own callable (operation " +
                      std::to_string(me) + "): a deadlock in std",
                  loc);
  while (flag.state_ == once_flag::state::running) wait(flag.resource_, loc);
  if (flag.state_ == once_flag::state::done) {
    hb_acquire(flag.resource_);  // the callable's effects are visible to every later caller
    return false;
  }
  flag.state_ = once_flag::state::running;
  flag.runner_ = me;
  flag.resource_.set_owner(me);
  return true;
}

void once_end(once_flag& flag, bool succeeded) {
  hb_release(flag.resource_);
  flag.state_ = succeeded ? once_flag::state::done : once_flag::state::unset;
  flag.runner_ = 0;
  flag.resource_.set_owner(0);
  // On success every waiter returns; on failure they re-check and one of them
  // becomes the next runner.
  signal(flag.resource_);
}

}  // namespace heddle::detail
