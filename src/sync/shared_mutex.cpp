// The reader-writer locks: one resource each. A writer waits while anyone
// holds the lock, a reader while a writer does; every release that may let a
// waiter in signals the resource and waiters re-check (Mesa semantics).
#include "heddle/shared_mutex.hpp"

#include "heddle/mutex.hpp"  // detail::release_point

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

namespace heddle {

namespace detail {

namespace {
std::string text(std::string_view s) { return std::string(s); }
}  // namespace

void shared_state::reset_if_stale() noexcept {
  if (!resource_.stale()) return;
  writer_ = 0;
  readers_.clear();
}

bool shared_state::holds_shared(operation_id op) const noexcept {
  return std::find(readers_.begin(), readers_.end(), op) != readers_.end();
}

bool shared_state::acquire(std::string_view type, bool shared, bool blocking,
                           std::optional<virtual_time> deadline, std::source_location loc) {
  reset_if_stale();
  scheduling_point(shared ? point_kind::acquire_shared : point_kind::acquire, resource_, loc);
  const operation_id me = current_operation();
  if (!unwinding() && (writer_ == me || holds_shared(me))) {
    const char* held = writer_ == me ? "exclusively" : "shared";
    const char* what = shared ? "lock_shared" : "lock";
    misuse(std::string(what) + " of a " + text(type) + " the caller (operation " + std::to_string(me) +
                      ") already holds " + held + " (self-deadlock or undefined behaviour in std: "
                      "no recursion, no upgrade)",
           loc);
    return false;
  }
  const auto conflicts = [&] { return writer_ != 0 || (!shared && !readers_.empty()); };
  while (conflicts()) {
    if (!blocking) return false;
    if (!deadline) {
      wait(resource_, loc);
      continue;
    }
    if (*deadline <= now() || wait_until(resource_, *deadline, loc) == wake_reason::timeout) {
      if (conflicts()) return false;
    }
  }
  if (shared) {
    readers_.push_back(me);
  } else {
    writer_ = me;
  }
  resource_.set_owner(shared ? readers_.front() : me);
  if (shared) hb_acquire_shared(resource_);
  else hb_acquire(resource_);
  return true;
}

void shared_state::release(std::string_view type, bool shared, std::source_location loc) {
  reset_if_stale();
  const operation_id me = current_operation();
  if (shared ? !holds_shared(me) : writer_ != me) {
    if (unwinding()) return;
    if (shared) {
      misuse("unlock_shared of a " + text(type) + " the caller (operation " + std::to_string(me) +
                        ") does not hold shared" + (writer_ == me ? " (it holds it exclusively: use unlock)" : ""),
             loc);
      return;
    }
    misuse(writer_ == 0 ? "unlock of a " + text(type) + " that is not locked exclusively" +
                                     (holds_shared(me) ? " (the caller holds it shared: use unlock_shared)" : "")
                               : "unlock of a " + text(type) + " owned by operation " + std::to_string(writer_) +
                                     ", not by the caller (operation " + std::to_string(me) + ")",
           loc);
    return;
  }
  release_point(resource_, loc, shared ? point_kind::release_shared : point_kind::release);
  if (shared) hb_release_shared(resource_);
  else hb_release(resource_);
  if (shared) {
    readers_.erase(std::find(readers_.begin(), readers_.end(), me));
  } else {
    writer_ = 0;
  }
  resource_.set_owner(readers_.empty() ? 0 : readers_.front());
  // Readers wait only for a writer; a writer waits for the last reader.
  if (!shared || readers_.empty()) signal(resource_);
}

void shared_state::check_unlocked(std::string_view type) noexcept {
  if (!in_control() || resource_.stale() || unwinding()) return;
  if (writer_ != 0)
    flag_misuse("destroying a " + text(type) + " that is locked (by operation " + std::to_string(writer_) + ")");
  else if (!readers_.empty())
    flag_misuse("destroying a " + text(type) + " that is locked shared (by " + std::to_string(readers_.size()) +
                " operation(s), first operation " + std::to_string(readers_.front()) + ")");
}

bool shared_state::held_by_caller() const noexcept {
  return !resource_.stale() && writer_ != 0 && writer_ == current_operation();
}

bool shared_state::held_shared_by_caller() const noexcept {
  return !resource_.stale() && current_operation() != 0 && holds_shared(current_operation());
}

}  // namespace detail

// Each class: the std primitive outside control, the shared state inside.
#define HEDDLE_SHARED_MUTEX(cls)                                                                      \
  bool detail::held_by_caller(const cls& m) noexcept { return m.state_.held_by_caller(); }           \
  bool detail::held_shared_by_caller(const cls& m) noexcept { return m.state_.held_shared_by_caller(); } \
  cls::~cls() { state_.check_unlocked("heddle::" #cls); }                                            \
  void cls::lock(std::source_location loc) {                                                         \
    if (!in_control()) return real_.lock();                                                          \
    state_.acquire("heddle::" #cls, false, true, std::nullopt, loc);                                 \
  }                                                                                                  \
  bool cls::try_lock(std::source_location loc) {                                                     \
    if (!in_control()) return real_.try_lock();                                                      \
    return state_.acquire("heddle::" #cls, false, false, std::nullopt, loc);                         \
  }                                                                                                  \
  void cls::unlock(std::source_location loc) {                                                       \
    if (!in_control()) return real_.unlock();                                                        \
    state_.release("heddle::" #cls, false, loc);                                                     \
  }                                                                                                  \
  void cls::lock_shared(std::source_location loc) {                                                  \
    if (!in_control()) return real_.lock_shared();                                                   \
    state_.acquire("heddle::" #cls, true, true, std::nullopt, loc);                                  \
  }                                                                                                  \
  bool cls::try_lock_shared(std::source_location loc) {                                              \
    if (!in_control()) return real_.try_lock_shared();                                               \
    return state_.acquire("heddle::" #cls, true, false, std::nullopt, loc);                          \
  }                                                                                                  \
  void cls::unlock_shared(std::source_location loc) {                                                \
    if (!in_control()) return real_.unlock_shared();                                                 \
    state_.release("heddle::" #cls, true, loc);                                                      \
  }

HEDDLE_SHARED_MUTEX(shared_mutex)
HEDDLE_SHARED_MUTEX(shared_timed_mutex)

#undef HEDDLE_SHARED_MUTEX

}  // namespace heddle
