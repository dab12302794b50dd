// heddle::mutex and its family (DESIGN.md section 8): std::mutex,
// std::timed_mutex, std::recursive_mutex, std::recursive_timed_mutex under
// control. lock, try_lock and unlock are scheduling points (acquire, release).
// Outside an iteration each forwards to its std counterpart.
//
// Misuse is a bug: unlocking a mutex one does not own, re-locking a
// non-recursive mutex (a self-deadlock in std), destroying a locked mutex.
#pragma once

#include <chrono>
#include <mutex>
#include <source_location>

#include "heddle/model.hpp"

namespace heddle {

class mutex {
 public:
  mutex() noexcept = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  ~mutex();

  void lock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());

 private:
  resource resource_{object_kind::mutex};
  operation_id owner_ = 0;  // controlled state; reset when the resource is stale
  std::mutex real_;
};

}  // namespace heddle
