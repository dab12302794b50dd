// heddle::future, shared_future, promise, packaged_task and async: std's
// futures under control.
//
// A shared state holds the result (a value, a reference, nothing, or an
// exception) and one resource of kind `future`.
// - Satisfying it (set_value, set_exception, a packaged_task or async call
//   returning) is a scheduling point (signal), then wakes every waiter.
// - get() and wait() block on the resource until the state is ready.
// - wait_for / wait_until block with a deadline on virtual time: the strategy
//   explores both the timeout and the ready outcome.
// - A promise or packaged_task destroyed before it is satisfied stores
//   std::future_error(broken_promise), as std does.
// - async(launch::async, ...) runs the callable as a new operation (spawn());
//   launch::deferred runs it in the first caller of get() or wait(); the
//   default policy runs it asynchronously. As in std, the last future of an
//   async state joins the operation when it is destroyed.
// Errors are the std ones: std::future_error with std::future_errc (no_state,
// future_already_retrieved, promise_already_satisfied, broken_promise); an
// uncaught one is reported as an uncaught exception.
//
// Outside an iteration the same state synchronizes with a real std::mutex and
// std::condition_variable, and async's launch::async runs a std::thread, so
// everything behaves like std. Not modelled: set_value_at_thread_exit and
// make_ready_at_thread_exit, allocator-taking constructors' allocators.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <source_location>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "heddle/chrono.hpp"
#include "heddle/model.hpp"

namespace heddle {

using std::future_category;
using std::future_errc;
using std::future_error;
using std::future_status;
using std::launch;

template <class R>
class future;
template <class R>
class shared_future;
template <class R>
class promise;
template <class Signature>
class packaged_task;

namespace detail {

// The result-independent part of a shared state (src/sync/future.cpp).
class future_state_base {
 public:
  future_state_base() = default;
  future_state_base(const future_state_base&) = delete;
  future_state_base& operator=(const future_state_base&) = delete;
  virtual ~future_state_base();

  // --- producer side ---
  // Under control a scheduling point (signal); throws promise_already_satisfied
  // when the state is ready. `store` writes the result.
  template <class Store>
  void satisfy(Store&& store, std::source_location loc) {
    std::unique_lock<std::mutex> lock = begin_satisfy(loc);
    std::forward<Store>(store)();
    end_satisfy(lock);
  }
  void set_exception(std::exception_ptr e, std::source_location loc) {
    satisfy([&] { error_ = std::move(e); }, loc);
  }
  // A promise or packaged_task dies unsatisfied: stores broken_promise and
  // wakes waiters, without a scheduling point (it runs in destructors).
  void abandon() noexcept;
  // get_future() may be called once per state.
  void mark_retrieved();
  bool ready_now();

  // --- consumer side ---
  // Waits until ready; a deferred function runs here in its first caller.
  void wait(std::source_location loc);
  future_status wait_until_virtual(virtual_time deadline, std::source_location loc);
  template <class Clock, class Duration>
  future_status wait_until(const std::chrono::time_point<Clock, Duration>& t, std::source_location loc) {
    if (in_control()) return wait_until_virtual(chrono::deadline_at(t), loc);
    std::unique_lock lock(mutex_);
    if (ready_) return future_status::ready;
    if (deferred_) return future_status::deferred;
    return ready_cv_.wait_until(lock, t, [&] { return ready_; }) ? future_status::ready : future_status::timeout;
  }
  template <class Rep, class Period>
  future_status wait_for(const std::chrono::duration<Rep, Period>& d, std::source_location loc) {
    if (in_control()) return wait_until_virtual(chrono::deadline_after(d), loc);
    std::unique_lock lock(mutex_);
    if (ready_) return future_status::ready;
    if (deferred_) return future_status::deferred;
    return ready_cv_.wait_for(lock, d, [&] { return ready_; }) ? future_status::ready : future_status::timeout;
  }
  // After wait(): throws the stored exception, if any.
  void rethrow_if_error() const {
    if (error_) std::rethrow_exception(error_);
  }

  // --- async and deferred ---
  void set_deferred(std::function<void()> run) { deferred_ = std::move(run); }
  void set_async_operation(operation_id op);
  void set_async_thread(std::thread t) { async_thread_ = std::move(t); }
  // Futures and shared_futures count themselves; the last one to go joins
  // an async operation or thread, as std's async futures do.
  void add_handle() noexcept { handles_.fetch_add(1, std::memory_order_relaxed); }
  void release_handle();

 private:
  std::unique_lock<std::mutex> begin_satisfy(std::source_location loc);
  void end_satisfy(std::unique_lock<std::mutex>& lock);
  // Runs the deferred function if this caller is the first; true when it ran.
  bool run_deferred_if_first();

  resource resource_{object_kind::future};
  std::mutex mutex_;  // outside control only; never held across a scheduling point
  std::condition_variable ready_cv_;
  bool ready_ = false;
  bool retrieved_ = false;
  std::exception_ptr error_;
  std::function<void()> deferred_;  // launch::deferred: runs in the first waiter
  bool deferred_started_ = false;
  operation_id async_op_ = 0;  // launch::async under control
  std::thread async_thread_;   // launch::async outside control
  std::atomic<int> handles_{0};
};

template <class R>
using future_stored_t = std::conditional_t<std::is_void_v<R>, std::monostate,
                                           std::conditional_t<std::is_reference_v<R>, std::remove_reference_t<R>*, R>>;

template <class R>
class future_state : public future_state_base {
 public:
  template <class... V>
  void set_value(std::source_location loc, V&&... v) {
    satisfy(
        [&] {
          if constexpr (std::is_reference_v<R>) {
            value_.emplace(std::addressof(v)...);
          } else {
            value_.emplace(std::forward<V>(v)...);
          }
        },
        loc);
  }
  future_stored_t<R>& value() { return *value_; }

 private:
  std::optional<future_stored_t<R>> value_;
};

// Calls `f` and satisfies `s` with its result or its exception.
template <class R, class F>
void run_into(future_state<R>& s, F&& f, std::source_location loc) {
  try {
    if constexpr (std::is_void_v<R>) {
      std::forward<F>(f)();
      s.set_value(loc);
    } else {
      s.set_value(loc, std::forward<F>(f)());
    }
  } catch (...) {
    // The engine is ending the iteration (a bug, maybe in this very callable):
    // that is not the callable's result.
    if (unwinding() || is_unwind_exception(std::current_exception())) throw;
    s.set_exception(std::current_exception(), loc);
  }
}

// A counted reference from a future or shared_future to its state.
template <class R>
class state_ref {
 public:
  state_ref() noexcept = default;
  explicit state_ref(std::shared_ptr<future_state<R>> s) noexcept : s_(std::move(s)) {
    if (s_) s_->add_handle();
  }
  state_ref(const state_ref& o) noexcept : s_(o.s_) {
    if (s_) s_->add_handle();
  }
  state_ref(state_ref&& o) noexcept = default;
  state_ref& operator=(state_ref o) noexcept(false) {
    reset();
    s_ = std::move(o.s_);
    return *this;
  }
  // Joining an async operation may end with the iteration, which unwinds the
  // joining operation with an exception. A destructor cannot let it out (a
  // noexcept(false) future would not fit in std::thread and friends), so it is
  // dropped here: the operation's next scheduling point throws it again.
  ~state_ref() {
    try {
      reset();
    } catch (...) {
    }
  }
  void reset() {
    if (std::shared_ptr<future_state<R>> s = std::move(s_)) s->release_handle();
  }
  future_state<R>* operator->() const noexcept { return s_.get(); }
  future_state<R>& operator*() const noexcept { return *s_; }
  explicit operator bool() const noexcept { return static_cast<bool>(s_); }

 private:
  std::shared_ptr<future_state<R>> s_;
};

[[noreturn]] void throw_future_error(future_errc code);

// Lets async() make a future from a state.
struct future_access {
  template <class R>
  static future<R> make(std::shared_ptr<future_state<R>> s) noexcept {
    return future<R>(std::move(s));
  }
};

template <class R>
struct shared_get_result {
  using type = const R&;
};
template <class R>
struct shared_get_result<R&> {
  using type = R&;
};
template <>
struct shared_get_result<void> {
  using type = void;
};

}  // namespace detail

template <class R>
class future {
  using loc_t = std::source_location;

 public:
  future() noexcept = default;
  future(future&&) noexcept = default;
  future& operator=(future&& other) = default;
  future(const future&) = delete;
  future& operator=(const future&) = delete;
  ~future() = default;

  shared_future<R> share() noexcept { return shared_future<R>(std::move(*this)); }

  // Waits for the result and returns it; the future is invalid afterwards.
  R get(loc_t loc = loc_t::current()) {
    if (!ref_) detail::throw_future_error(future_errc::no_state);
    detail::state_ref<R> ref = std::move(ref_);
    ref->wait(loc);
    ref->rethrow_if_error();
    if constexpr (std::is_void_v<R>) {
      return;
    } else if constexpr (std::is_reference_v<R>) {
      return *ref->value();
    } else {
      return std::move(ref->value());
    }
  }
  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(ref_); }
  void wait(loc_t loc = loc_t::current()) const {
    check();
    ref_->wait(loc);
  }
  template <class Rep, class Period>
  future_status wait_for(const std::chrono::duration<Rep, Period>& d, loc_t loc = loc_t::current()) const {
    check();
    return ref_->wait_for(d, loc);
  }
  template <class Clock, class Duration>
  future_status wait_until(const std::chrono::time_point<Clock, Duration>& t, loc_t loc = loc_t::current()) const {
    check();
    return ref_->wait_until(t, loc);
  }

 private:
  friend class promise<R>;
  friend class shared_future<R>;
  template <class Signature>
  friend class packaged_task;
  friend struct detail::future_access;

  explicit future(std::shared_ptr<detail::future_state<R>> s) noexcept : ref_(std::move(s)) {}
  void check() const {
    if (!ref_) detail::throw_future_error(future_errc::no_state);
  }
  detail::state_ref<R> ref_;
};

template <class R>
class shared_future {
  using loc_t = std::source_location;

 public:
  shared_future() noexcept = default;
  shared_future(const shared_future&) noexcept = default;
  shared_future(shared_future&&) noexcept = default;
  shared_future(future<R>&& f) noexcept : ref_(std::move(f.ref_)) {}
  shared_future& operator=(const shared_future&) = default;
  shared_future& operator=(shared_future&&) = default;
  ~shared_future() = default;

  // Waits for the result; every copy may call get() any number of times.
  typename detail::shared_get_result<R>::type get(loc_t loc = loc_t::current()) const {
    check();
    ref_->wait(loc);
    ref_->rethrow_if_error();
    if constexpr (std::is_void_v<R>) {
      return;
    } else if constexpr (std::is_reference_v<R>) {
      return *ref_->value();
    } else {
      return ref_->value();
    }
  }
  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(ref_); }
  void wait(loc_t loc = loc_t::current()) const {
    check();
    ref_->wait(loc);
  }
  template <class Rep, class Period>
  future_status wait_for(const std::chrono::duration<Rep, Period>& d, loc_t loc = loc_t::current()) const {
    check();
    return ref_->wait_for(d, loc);
  }
  template <class Clock, class Duration>
  future_status wait_until(const std::chrono::time_point<Clock, Duration>& t, loc_t loc = loc_t::current()) const {
    check();
    return ref_->wait_until(t, loc);
  }

 private:
  void check() const {
    if (!ref_) detail::throw_future_error(future_errc::no_state);
  }
  detail::state_ref<R> ref_;
};

template <class R>
class promise {
  using loc_t = std::source_location;
  using state_type = detail::future_state<R>;

 public:
  promise() : state_(std::make_shared<state_type>()) {}
  template <class Alloc>
  promise(std::allocator_arg_t, const Alloc&) : promise() {}
  promise(promise&&) noexcept = default;
  promise& operator=(promise&& other) noexcept {
    if (this != &other) {
      abandon();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  promise(const promise&) = delete;
  promise& operator=(const promise&) = delete;
  ~promise() { abandon(); }
  void swap(promise& other) noexcept { state_.swap(other.state_); }

  future<R> get_future() {
    check();
    state_->mark_retrieved();
    return future<R>(state_);
  }

  template <class U = R>
    requires(!std::is_void_v<U> && !std::is_reference_v<U>)
  void set_value(const std::type_identity_t<U>& v, loc_t loc = loc_t::current()) {
    check();
    state_->set_value(loc, v);
  }
  template <class U = R>
    requires(!std::is_void_v<U> && !std::is_reference_v<U>)
  void set_value(std::type_identity_t<U>&& v, loc_t loc = loc_t::current()) {
    check();
    state_->set_value(loc, std::move(v));
  }
  template <class U = R>
    requires std::is_reference_v<U>
  void set_value(std::type_identity_t<U> v, loc_t loc = loc_t::current()) {
    check();
    state_->set_value(loc, v);
  }
  template <class U = R>
    requires std::is_void_v<U>
  void set_value(loc_t loc = loc_t::current()) {
    check();
    state_->set_value(loc);
  }
  void set_exception(std::exception_ptr e, loc_t loc = loc_t::current()) {
    check();
    state_->set_exception(std::move(e), loc);
  }

 private:
  void check() const {
    if (!state_) detail::throw_future_error(future_errc::no_state);
  }
  void abandon() noexcept {
    if (state_) state_->abandon();
  }
  std::shared_ptr<state_type> state_;
};

template <class R>
void swap(promise<R>& a, promise<R>& b) noexcept {
  a.swap(b);
}

template <class R, class... Args>
class packaged_task<R(Args...)> {
  using loc_t = std::source_location;
  using state_type = detail::future_state<R>;

 public:
  packaged_task() noexcept = default;
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, packaged_task> && std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
  explicit packaged_task(F&& f)
      : fn_([p = std::make_shared<std::decay_t<F>>(std::forward<F>(f))](Args... args) -> R {
          return std::invoke(*p, std::forward<Args>(args)...);
        }),
        state_(std::make_shared<state_type>()) {}
  packaged_task(packaged_task&&) noexcept = default;
  packaged_task& operator=(packaged_task&& other) noexcept {
    if (this != &other) {
      abandon();
      fn_ = std::move(other.fn_);
      state_ = std::move(other.state_);
    }
    return *this;
  }
  packaged_task(const packaged_task&) = delete;
  packaged_task& operator=(const packaged_task&) = delete;
  ~packaged_task() { abandon(); }

  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(state_); }
  void swap(packaged_task& other) noexcept {
    fn_.swap(other.fn_);
    state_.swap(other.state_);
  }
  future<R> get_future() {
    check();
    state_->mark_retrieved();
    return future<R>(state_);
  }
  // Runs the task and satisfies its future with the result or the exception.
  void operator()(Args... args, loc_t loc = loc_t::current()) {
    check();
    if (state_->ready_now()) detail::throw_future_error(future_errc::promise_already_satisfied);
    detail::run_into(*state_, [&]() -> R { return fn_(std::forward<Args>(args)...); }, loc);
  }
  // A fresh state for the same callable; the old one is abandoned.
  void reset() {
    check();
    abandon();
    state_ = std::make_shared<state_type>();
  }

 private:
  void check() const {
    if (!state_) detail::throw_future_error(future_errc::no_state);
  }
  void abandon() noexcept {
    if (state_) state_->abandon();
  }
  std::function<R(Args...)> fn_;
  std::shared_ptr<state_type> state_;
};

template <class R, class... Args>
void swap(packaged_task<R(Args...)>& a, packaged_task<R(Args...)>& b) noexcept {
  a.swap(b);
}

// Runs f(args...) as a new operation (launch::async, and the default policy)
// or lazily in the first get()/wait() (launch::deferred). std::async has no
// place for a source_location: reports name this header's line.
template <class F, class... Args>
[[nodiscard]] auto async(launch policy, F&& f, Args&&... args) {
  using R = std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>;
  using state_type = detail::future_state<R>;
  auto state = std::make_shared<state_type>();
  // Decay-copied callable and arguments, shared so that std::function can hold them.
  auto call = std::make_shared<std::tuple<std::decay_t<F>, std::decay_t<Args>...>>(std::forward<F>(f),
                                                                                   std::forward<Args>(args)...);
  auto invoke = [call]() -> R {
    return std::apply([](auto& fn, auto&... a) -> R { return std::invoke(std::move(fn), std::move(a)...); },
                      *call);
  };
  const auto loc = std::source_location::current();
  if ((policy & launch::async) == launch::async) {
    if (in_control()) {
      state->set_async_operation(spawn([state, invoke, loc] { detail::run_into(*state, invoke, loc); }, "async"));
    } else {
      state->set_async_thread(std::thread([state, invoke, loc] { detail::run_into(*state, invoke, loc); }));
    }
  } else {
    // launch::deferred (and, as in libstdc++, a policy naming neither).
    // The state owns this function: a raw pointer back to it avoids a cycle.
    state->set_deferred([self = state.get(), invoke, loc] { detail::run_into(*self, invoke, loc); });
  }
  return detail::future_access::make<R>(std::move(state));
}

template <class F, class... Args>
  requires(!std::is_same_v<std::decay_t<F>, launch>)
[[nodiscard]] auto async(F&& f, Args&&... args) {
  return heddle::async(launch::async | launch::deferred, std::forward<F>(f), std::forward<Args>(args)...);
}

}  // namespace heddle
