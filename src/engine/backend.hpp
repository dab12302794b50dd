// How operations physically run (DESIGN.md section 6), as the engine sees it.
//
// A backend keeps one execution context per slot: slot 0 is the scheduler (the
// thread that called engine::run), slot N is the engine's operation record N
// (an operation and the continuations it goes on as, engine::renew). The engine decides;
// the backend only switches. Exactly one slot runs at a time. A fiber backend
// and an OS-thread backend implement the same contract, so traces recorded on
// one replay on the other.
#pragma once

#include <cstddef>
#include <string_view>

namespace heddle::detail {

// Runs operation `slot` to completion and returns the slot to switch to next.
using operation_main = std::size_t (*)(void* engine, std::size_t slot);

class backend {
 public:
  virtual ~backend() = default;
  virtual void begin_iteration(operation_main main, void* engine) = 0;
  // Suspends `from` and resumes `to`, creating `to`'s context on its first
  // switch. Returns when some slot switches back to `from`.
  virtual void switch_to(std::size_t from, std::size_t to) = 0;
  // `slot` is suspended and will never be resumed again: reclaim what can be.
  virtual void abandon(std::size_t slot) = 0;
  // Every operation has finished or been abandoned.
  virtual void end_iteration() = 0;
  virtual std::string_view name() const = 0;

  // A hook the backend calls, on the thread or fiber that is switching,
  // instead of resuming the scheduler (slot 0) during an iteration: the
  // first such switch means the iteration is over and the engine is about to
  // unwind. The fork server's child ends its process there, so its C frames
  // are never unwound by an exception. Virtual so that a backend can take a
  // slower path only when a hook is set.
  virtual void on_scheduler_resumed(void (*hook)(void*), void* argument) noexcept {
    hook_ = hook;
    hook_argument_ = argument;
  }

 protected:
  bool has_scheduler_hook() const noexcept { return hook_ != nullptr; }
  void call_scheduler_hook() const { hook_(hook_argument_); }

 private:
  void (*hook_)(void*) = nullptr;
  void* hook_argument_ = nullptr;
};

}  // namespace heddle::detail
