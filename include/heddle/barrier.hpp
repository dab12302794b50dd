// heddle::barrier (DESIGN.md section 8): std::barrier under control. arrive
// is a scheduling point (signal), wait one (wait) that blocks until the
// token's phase completes. The operation whose arrival completes a phase runs
// the completion function, before any waiter is released.
// Outside an iteration it forwards to std::barrier, which calls the same
// completion function.
//
// Misuse is a bug: arriving more often than the current phase still expects
// (std's precondition), destroying a barrier while operations wait on it.
#pragma once

#include <barrier>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <source_location>
#include <type_traits>
#include <utility>

#include "heddle/model.hpp"

namespace heddle {

namespace detail {

struct empty_completion {
  void operator()() noexcept {}
};

// The controlled state of one barrier; the completion function stays in the
// template and is passed in as a callback.
class barrier_state {
 public:
  explicit barrier_state(std::ptrdiff_t expected) noexcept
      : initial_(expected), expected_(expected), pending_(expected) {}
  // Arrives `n` times (after leaving all later phases when `drop`); the
  // arrival that completes the phase calls complete(context) and then releases
  // the waiters. Returns the phase arrived at.
  std::uint64_t arrive(std::ptrdiff_t n, bool drop, void (*complete)(void*), void* context,
                       std::source_location loc);
  void wait(std::uint64_t phase, std::source_location loc) const;
  void check_no_waiters() const noexcept;

 private:
  void reset_if_stale() const noexcept;

  resource resource_{object_kind::barrier};
  std::ptrdiff_t initial_;
  // Controlled state, back to the initial values when the resource is stale.
  mutable std::ptrdiff_t expected_;  // arrivals each later phase expects
  mutable std::ptrdiff_t pending_;   // arrivals the current phase still expects
  mutable std::uint64_t phase_ = 0;
};

}  // namespace detail

template <class CompletionFunction = detail::empty_completion>
class barrier {
  static_assert(std::is_nothrow_invocable_v<CompletionFunction&>,
                "std::barrier requires a completion function callable without throwing");

  // Lets std::barrier call the one completion function this object owns.
  struct completion_ref {
    barrier* self;
    void operator()() noexcept { self->completion_(); }
  };
  using real_barrier = std::barrier<completion_ref>;

 public:
  class arrival_token {
   public:
    arrival_token(arrival_token&&) = default;
    arrival_token& operator=(arrival_token&&) = default;

   private:
    friend class barrier;
    explicit arrival_token(std::uint64_t phase) noexcept : phase_(phase) {}
    explicit arrival_token(typename real_barrier::arrival_token&& real) : real_(std::move(real)) {}
    std::uint64_t phase_ = 0;
    std::optional<typename real_barrier::arrival_token> real_;
  };

  static constexpr std::ptrdiff_t max() noexcept { return real_barrier::max(); }

  explicit barrier(std::ptrdiff_t expected, CompletionFunction f = CompletionFunction())
      : completion_(std::move(f)), state_(expected), real_(expected, completion_ref{this}) {}
  barrier(const barrier&) = delete;
  barrier& operator=(const barrier&) = delete;
  ~barrier() { state_.check_no_waiters(); }

  [[nodiscard]] arrival_token arrive(std::ptrdiff_t n = 1, std::source_location loc = std::source_location::current()) {
    if (!in_control()) return arrival_token(real_.arrive(n));
    return arrival_token(state_.arrive(n, false, &complete, this, loc));
  }
  void wait(arrival_token&& token, std::source_location loc = std::source_location::current()) const {
    if (token.real_) return real_.wait(std::move(*token.real_));
    if (in_control()) state_.wait(token.phase_, loc);
  }
  void arrive_and_wait(std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.arrive_and_wait();
    state_.wait(state_.arrive(1, false, &complete, this, loc), loc);
  }
  void arrive_and_drop(std::source_location loc = std::source_location::current()) {
    if (!in_control()) return real_.arrive_and_drop();
    state_.arrive(1, true, &complete, this, loc);
  }

 private:
  static void complete(void* self) { static_cast<barrier*>(self)->completion_(); }

  CompletionFunction completion_;
  detail::barrier_state state_;
  real_barrier real_;
};

}  // namespace heddle
