// heddle::mutex: one resource; lock waits on it while another operation owns
// the mutex, unlock signals it (waiters re-check: Mesa semantics).
#include "heddle/mutex.hpp"

namespace heddle {

mutex::~mutex() {
  if (in_control() && !resource_.stale() && owner_ != 0 && !unwinding())
    flag_misuse("destroying a heddle::mutex that is locked (by operation " + std::to_string(owner_) + ")");
}

void mutex::lock(std::source_location loc) {
  if (!in_control()) {
    real_.lock();
    return;
  }
  if (resource_.stale()) owner_ = 0;
  scheduling_point(point_kind::acquire, resource_, loc);
  const operation_id me = current_operation();
  if (owner_ == me && !unwinding())
    report_misuse("re-locking a heddle::mutex already held by the same operation (self-deadlock)", loc);
  while (owner_ != 0) wait(resource_, loc);
  owner_ = me;
  resource_.set_owner(me);
}

bool mutex::try_lock(std::source_location loc) {
  if (!in_control()) return real_.try_lock();
  if (resource_.stale()) owner_ = 0;
  scheduling_point(point_kind::acquire, resource_, loc);
  if (owner_ != 0) return false;
  owner_ = current_operation();
  resource_.set_owner(owner_);
  return true;
}

void mutex::unlock(std::source_location loc) {
  if (!in_control()) {
    real_.unlock();
    return;
  }
  if (resource_.stale()) owner_ = 0;
  const operation_id me = current_operation();
  if (owner_ != me) {
    if (unwinding()) return;
    report_misuse(owner_ == 0 ? "unlock of a heddle::mutex that is not locked"
                              : "unlock of a heddle::mutex owned by operation " + std::to_string(owner_) +
                                    ", not by the caller (operation " + std::to_string(me) + ")",
                  loc);
  }
  scheduling_point(point_kind::release, resource_, loc);
  owner_ = 0;
  resource_.set_owner(0);
  signal(resource_);
}

}  // namespace heddle
