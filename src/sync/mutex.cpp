// The exclusive mutexes: one resource each; lock waits on it while another
// operation owns the mutex, unlock signals it (waiters re-check: Mesa
// semantics). A recursive mutex counts its owner's locks; a timed lock waits
// with a deadline, so the strategy may let the deadline pass (timeout).
#include "heddle/mutex.hpp"

#include <exception>
#include <string>
#include <utility>

namespace heddle {

namespace detail {

namespace {
std::string text(std::string_view s) { return std::string(s); }
}  // namespace

bool exclusive_state::contended(std::string_view type, bool recursive, bool blocking,
                                std::optional<virtual_time> deadline, std::source_location loc) {
  const operation_id me = current_operation();
  if (owner_ == me && me != 0) {
    if (recursive) {
      ++depth_;
      return true;
    }
    if (!unwinding() && !blocking) {
      misuse("try_lock of a " + text(type) + " already held by the same operation (undefined "
                        "behaviour in std)",
             loc);
      return false;
    }
    if (!unwinding()) {
      misuse("re-locking a " + text(type) + " already held by the same operation (self-deadlock; "
                        "use a recursive mutex or unlock first)",
             loc);
      return false;
    }
  }
  while (owner_ != 0) {
    if (!blocking) return false;
    if (!deadline) {
      wait(resource_, loc);
      continue;
    }
    // A deadline already reached behaves like try_lock, as in std.
    if (*deadline <= now() || wait_until(resource_, *deadline, loc) == wake_reason::timeout) {
      if (owner_ != 0) return false;
    }
  }
  return take(me, resource_.id());
}

void exclusive_state::release(std::string_view type, std::source_location loc) {
  reset_if_stale();
  const operation_id me = current_operation();
  if (owner_ != me) {
    if (unwinding()) return;
    misuse(owner_ == 0 ? "unlock of a " + text(type) + " that is not locked"
                              : "unlock of a " + text(type) + " owned by operation " + std::to_string(owner_) +
                                    ", not by the caller (operation " + std::to_string(me) + ")",
           loc);
    return;
  }
  release_point(resource_, loc);
  if (--depth_ > 0) return;
  hb_release(resource_);
  owner_ = 0;
  resource_.set_owner(0);
  signal(resource_);
}

void exclusive_state::check_unlocked(std::string_view type) noexcept {
  if (in_control() && !resource_.stale() && owner_ != 0 && !unwinding())
    flag_misuse("destroying a " + text(type) + " that is locked (by operation " + std::to_string(owner_) + ")");
}

bool exclusive_state::held_by_caller() const noexcept {
  return !resource_.stale() && owner_ != 0 && owner_ == current_operation();
}

}  // namespace detail

// Each class: the std primitive outside control, the shared state inside
// (lock, try_lock and unlock are inline in the header).
#define HEDDLE_EXCLUSIVE_MUTEX(cls)                                                        \
  bool detail::held_by_caller(const cls& m) noexcept { return m.state_.held_by_caller(); } \
  cls::~cls() { state_.check_unlocked("heddle::" #cls); }

HEDDLE_EXCLUSIVE_MUTEX(mutex)
HEDDLE_EXCLUSIVE_MUTEX(recursive_mutex)
HEDDLE_EXCLUSIVE_MUTEX(timed_mutex)
HEDDLE_EXCLUSIVE_MUTEX(recursive_timed_mutex)

#undef HEDDLE_EXCLUSIVE_MUTEX

}  // namespace heddle
