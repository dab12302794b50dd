// heddle::stop_source, stop_token, stop_callback: std's cooperative
// cancellation (C++20) under control.
//
// One implementation serves both sides. The stop state is shared by sources,
// tokens and callbacks; a small std::mutex guards its callback list and is
// never held across a scheduling point or while a callback runs, so the same
// code is thread-safe outside an iteration and cannot block the single OS
// thread that runs an iteration's fibers.
//
// Under control:
// - request_stop() is a scheduling point (signal on the state's stop_state
//   resource); it then runs the registered callbacks in the requesting
//   operation, as std does, and signals the resource so that waiters re-check.
// - stop_requested() is a scheduling point (read), so a loop that polls a token
//   lets other operations run.
// - registering a stop_callback is a scheduling point (read), so a request
//   racing with a registration is explored both ways.
// - destroying a stop_callback whose callback is running in another operation
//   blocks until it returns, as std does.
// Functions that may reach a scheduling point are not noexcept (std's are): an
// iteration that ends while an operation is paused there unwinds it with an
// exception. ~stop_callback, noexcept as in std, drops that exception if the
// iteration ends while it waits: the operation's next scheduling point throws
// it again.
#pragma once

#include <atomic>
#include <concepts>
#include <exception>
#include <cstddef>
#include <memory>
#include <source_location>
#include <type_traits>
#include <utility>

#include "heddle/model.hpp"

namespace heddle {

struct nostopstate_t {
  explicit nostopstate_t() = default;
};
inline constexpr nostopstate_t nostopstate{};

class stop_token;
class stop_source;

namespace detail {

class stop_state;

// The part of a stop_callback the state links into its list.
class stop_callback_base {
 public:
  stop_callback_base(const stop_callback_base&) = delete;
  stop_callback_base& operator=(const stop_callback_base&) = delete;

 protected:
  using invoke_fn = void (*)(stop_callback_base*);
  explicit stop_callback_base(invoke_fn invoke) noexcept : invoke_(invoke) {}
  ~stop_callback_base() = default;

  // Registers with the state of `token`, or runs the callback at once when a
  // stop was already requested.
  void attach(const stop_token& token, std::source_location loc);
  // Unregisters; waits while the callback runs in another operation or thread.
  void detach();

 private:
  friend class stop_state;
  invoke_fn invoke_;
  stop_callback_base* prev_ = nullptr;  // list links, guarded by the state's mutex
  stop_callback_base* next_ = nullptr;
  bool* destroyed_ = nullptr;  // set when the callback destroys its own stop_callback
  bool done_ = false;          // the callback has returned (guarded by the state's mutex)
  std::shared_ptr<stop_state> state_;
};

std::shared_ptr<stop_state> make_stop_state();
bool stop_state_requested(const stop_state& s) noexcept;
bool stop_state_has_sources(const stop_state& s) noexcept;
void stop_state_add_source(stop_state& s) noexcept;
void stop_state_remove_source(stop_state& s) noexcept;
bool stop_state_request(stop_state& s, std::source_location loc);
void stop_state_point(const stop_state& s, std::source_location loc);

}  // namespace detail

class stop_token {
 public:
  stop_token() noexcept = default;

  // True when a stop was requested; under control a scheduling point (read).
  [[nodiscard]] bool stop_requested(std::source_location loc = std::source_location::current()) const {
    if (!state_) return false;
    if (in_control()) detail::stop_state_point(*state_, loc);
    return detail::stop_state_requested(*state_);
  }
  // True when a stop was requested or still can be (some stop_source lives).
  [[nodiscard]] bool stop_possible() const noexcept {
    return state_ && (detail::stop_state_requested(*state_) || detail::stop_state_has_sources(*state_));
  }
  void swap(stop_token& other) noexcept { state_.swap(other.state_); }
  friend bool operator==(const stop_token& a, const stop_token& b) noexcept { return a.state_ == b.state_; }
  friend void swap(stop_token& a, stop_token& b) noexcept { a.swap(b); }

 private:
  friend class stop_source;
  friend class detail::stop_callback_base;
  explicit stop_token(std::shared_ptr<detail::stop_state> s) noexcept : state_(std::move(s)) {}
  std::shared_ptr<detail::stop_state> state_;
};

class stop_source {
 public:
  stop_source() : state_(detail::make_stop_state()) { detail::stop_state_add_source(*state_); }
  explicit stop_source(nostopstate_t) noexcept {}
  stop_source(const stop_source& other) noexcept : state_(other.state_) {
    if (state_) detail::stop_state_add_source(*state_);
  }
  stop_source(stop_source&& other) noexcept = default;
  stop_source& operator=(const stop_source& other) noexcept {
    if (this != &other) stop_source(other).swap(*this);
    return *this;
  }
  stop_source& operator=(stop_source&& other) noexcept {
    stop_source(std::move(other)).swap(*this);
    return *this;
  }
  ~stop_source() {
    if (state_) detail::stop_state_remove_source(*state_);
  }

  // Requests a stop and runs the registered callbacks; true when this call
  // made the request. Under control a scheduling point (signal).
  bool request_stop(std::source_location loc = std::source_location::current()) {
    return state_ && detail::stop_state_request(*state_, loc);
  }
  [[nodiscard]] stop_token get_token() const noexcept { return stop_token(state_); }
  [[nodiscard]] bool stop_possible() const noexcept { return static_cast<bool>(state_); }
  [[nodiscard]] bool stop_requested(std::source_location loc = std::source_location::current()) const {
    return get_token().stop_requested(loc);
  }
  void swap(stop_source& other) noexcept { state_.swap(other.state_); }
  friend bool operator==(const stop_source& a, const stop_source& b) noexcept { return a.state_ == b.state_; }
  friend void swap(stop_source& a, stop_source& b) noexcept { a.swap(b); }

 private:
  std::shared_ptr<detail::stop_state> state_;
};

template <class Callback>
class stop_callback : private detail::stop_callback_base {
  static_assert(std::is_nothrow_destructible_v<Callback>);
  static_assert(std::is_invocable_v<Callback>);

 public:
  using callback_type = Callback;

  template <class C>
    requires std::constructible_from<Callback, C>
  explicit stop_callback(const stop_token& token, C&& cb,
                         std::source_location loc = std::source_location::current())
      : stop_callback_base(&invoke), callback_(std::forward<C>(cb)) {
    attach(token, loc);
  }
  template <class C>
    requires std::constructible_from<Callback, C>
  explicit stop_callback(stop_token&& token, C&& cb, std::source_location loc = std::source_location::current())
      : stop_callback_base(&invoke), callback_(std::forward<C>(cb)) {
    attach(token, loc);
  }
  // May block while the callback runs elsewhere: see the file comment.
  ~stop_callback() {
    try {
      detach();
    } catch (...) {
      if (!in_control()) std::terminate();  // as std's noexcept destructor
    }
  }

  stop_callback(const stop_callback&) = delete;
  stop_callback& operator=(const stop_callback&) = delete;

 private:
  static void invoke(detail::stop_callback_base* self) {
    std::forward<Callback>(static_cast<stop_callback*>(self)->callback_)();
  }
  Callback callback_;
};

template <class Callback>
stop_callback(stop_token, Callback) -> stop_callback<Callback>;

}  // namespace heddle
