// Async synchronization for heddle::task (docs/tasks.md): async_mutex (with a
// scoped lock), async_semaphore, async_event, a bounded channel<T> with
// close, and cancellation through heddle::stop_token or std::stop_token.
//
// Every wait is a co_await: the awaiting task blocks its operation until the
// primitive lets it go (giving its thread_pool worker back meanwhile), and
// the task goes on as a new operation in the chain of the operation that let
// it go (the unlocker, the releaser, the sender, the setter, the canceller),
// as after a co_await of a task (PCT^t). Wake-ups follow Mesa semantics: the
// woken re-check. A deadlock among tasks is reported as among threads, with
// who waits for what and who holds an async_mutex.
//
// Misuse is a bug with a plain message: unlocking an async_mutex that is not
// locked, closing a channel twice. Sending on a closed channel throws
// heddle::channel_closed (unhandled, an uncaught_exception bug), and a
// cancelled wait throws heddle::operation_canceled.
//
// Each primitive resets itself when first used in a new iteration, so one may
// be global. Outside a controlled iteration the primitives work on one
// thread without blocking: a wait that would block aborts with a message.
#pragma once

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <stop_token>
#include <utility>
#include <vector>

#include "heddle/model.hpp"
#include "heddle/stop_token.hpp"
#include "heddle/task.hpp"

namespace heddle {

// A wait cancelled through its stop token.
class operation_canceled : public std::runtime_error {
 public:
  HEDDLE_MODEL_INLINE operation_canceled() : std::runtime_error("operation canceled") {}
};

// A send on a closed channel.
class channel_closed : public std::logic_error {
 public:
  HEDDLE_MODEL_INLINE channel_closed() : std::logic_error("send on a closed channel") {}
};

namespace detail::tasks {

using waiter_list = std::vector<await_record*>;

// src/runtime/async_wait.cpp
// One wait of the awaiting task on `r`, registered in `waiters` while it
// blocks; gives the pool worker back and takes one again. With a deadline the
// task first goes on in its own chain (a delay), and the wait may time out.
wake_reason async_wait(task_core* self, const resource& r, waiter_list& waiters, point_kind kind,
                       std::optional<virtual_time> deadline, std::source_location loc);
// Wakes the tasks waiting in `waiters` on `r`, each into the running
// operation's chain.
void async_wake(const resource& r, waiter_list& waiters) noexcept;
// The running task holds `r` (an async_mutex): deadlock messages name the
// operation that runs it now, across its resumptions.
void async_hold(const resource& r);
void async_unhold(const resource& r) noexcept;
[[noreturn]] void would_block_outside_control(const char* what);

// Cancellation: while alive, a stop request on the token wakes the waiters of
// a primitive (they see the request and throw operation_canceled).
template <class Token>
struct cancel_link;
template <>
struct cancel_link<heddle::stop_token> {
  struct wake {
    const resource* r;
    waiter_list* waiters;
    HEDDLE_MODEL_INLINE void operator()() const noexcept { async_wake(*r, *waiters); }
  };
  std::optional<heddle::stop_callback<wake>> callback;
  HEDDLE_MODEL_INLINE cancel_link(const heddle::stop_token& token, const resource& r, waiter_list& waiters, std::source_location loc) {
    if (token.stop_possible()) callback.emplace(token, wake{&r, &waiters}, loc);
  }
  HEDDLE_MODEL_INLINE static bool requested(const heddle::stop_token& token, std::source_location loc) {
    return token.stop_requested(loc);
  }
};
template <>
struct cancel_link<std::stop_token> {
  struct wake {
    const resource* r;
    waiter_list* waiters;
    HEDDLE_MODEL_INLINE void operator()() const noexcept { async_wake(*r, *waiters); }
  };
  std::optional<std::stop_callback<wake>> callback;
  HEDDLE_MODEL_INLINE cancel_link(const std::stop_token& token, const resource& r, waiter_list& waiters, std::source_location) {
    if (token.stop_possible()) callback.emplace(token, wake{&r, &waiters});
  }
  HEDDLE_MODEL_INLINE static bool requested(const std::stop_token& token, std::source_location) { return token.stop_requested(); }
};
template <class Token>
concept stop_token_type = std::same_as<Token, heddle::stop_token> || std::same_as<Token, std::stop_token>;

// The awaitable of a primitive's blocking operation: `op(self)` runs in
// await_ready, on the awaiting task's operation, and gives the result.
template <class Result, class Op>
struct blocking_awaiter {
  HEDDLE_MODEL_INLINE explicit blocking_awaiter(Op o) : op(std::move(o)) {}
  Op op;
  task_core* self = nullptr;
  std::optional<Result> result;
  HEDDLE_MODEL_INLINE void bind_task(task_core* t) noexcept { self = t; }
  HEDDLE_MODEL_INLINE bool await_ready() {
    result.emplace(op(self));
    return true;
  }
  HEDDLE_MODEL_INLINE void await_suspend(std::coroutine_handle<>) noexcept {}
  HEDDLE_MODEL_INLINE Result await_resume() { return std::move(*result); }
};
template <class Op>
struct blocking_awaiter<void, Op> {
  HEDDLE_MODEL_INLINE explicit blocking_awaiter(Op o) : op(std::move(o)) {}
  Op op;
  task_core* self = nullptr;
  HEDDLE_MODEL_INLINE void bind_task(task_core* t) noexcept { self = t; }
  HEDDLE_MODEL_INLINE bool await_ready() {
    op(self);
    return true;
  }
  HEDDLE_MODEL_INLINE void await_suspend(std::coroutine_handle<>) noexcept {}
  HEDDLE_MODEL_INLINE void await_resume() const noexcept {}
};
template <class Result, class Op>
HEDDLE_MODEL_INLINE blocking_awaiter<Result, Op> make_awaiter(Op op) {
  return blocking_awaiter<Result, Op>(std::move(op));
}

}  // namespace detail::tasks

class async_mutex;

// Unlocks its async_mutex when destroyed (co_await m.scoped_lock()).
class [[nodiscard]] async_lock_guard {
 public:
  HEDDLE_MODEL_INLINE explicit async_lock_guard(async_mutex& m) noexcept : m_(&m) {}
  HEDDLE_MODEL_INLINE async_lock_guard(async_lock_guard&& other) noexcept : m_(std::exchange(other.m_, nullptr)) {}
  async_lock_guard& operator=(async_lock_guard&&) = delete;
  ~async_lock_guard();
  void unlock();

 private:
  async_mutex* m_;
};

// A mutex for tasks: `co_await m.lock()` / `m.unlock()`, or
// `auto guard = co_await m.scoped_lock();`. Owned by the task that locked it
// (unlocking it from another task is allowed, as with C#'s SemaphoreSlim).
class async_mutex {
 public:
  async_mutex() = default;
  async_mutex(const async_mutex&) = delete;
  async_mutex& operator=(const async_mutex&) = delete;

  HEDDLE_MODEL_INLINE auto lock(std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<void>([this, loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE { acquire(self, loc); });
  }
  HEDDLE_MODEL_INLINE auto scoped_lock(std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<async_lock_guard>([this, loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE {
      acquire(self, loc);
      return async_lock_guard(*this);
    });
  }
  HEDDLE_MODEL_INLINE bool try_lock(std::source_location loc = std::source_location::current()) {
    refresh();
    scheduling_point(point_kind::acquire, r_, loc);
    if (locked_) return false;
    take();
    return true;
  }
  HEDDLE_MODEL_INLINE void unlock(std::source_location loc = std::source_location::current()) {
    refresh();
    if (!locked_) {
      misuse("async_mutex::unlock of an async_mutex that is not locked", loc);
      return;
    }
    scheduling_point(point_kind::release, r_, loc);
    hb_release(r_);
    locked_ = false;
    detail::tasks::async_unhold(r_);
    detail::tasks::async_wake(r_, waiters_);
  }
  HEDDLE_MODEL_INLINE bool locked() const noexcept { return locked_; }

 private:
  HEDDLE_MODEL_INLINE void refresh() {
    if (r_.stale()) {
      locked_ = false;
      waiters_.clear();
      (void)r_.id();
    }
  }
  HEDDLE_MODEL_INLINE void take() {
    locked_ = true;
    detail::tasks::async_hold(r_);
    hb_acquire(r_);
  }
  HEDDLE_MODEL_INLINE void acquire(detail::tasks::task_core* self, std::source_location loc) {
    refresh();
    lock_point(r_, loc);
    while (locked_) {
      if (!in_control()) detail::tasks::would_block_outside_control("async_mutex::lock");
      detail::tasks::async_wait(self, r_, waiters_, point_kind::acquire, std::nullopt, loc);
    }
    take();
  }
  resource r_{object_kind::mutex};
  bool locked_ = false;
  detail::tasks::waiter_list waiters_;
};

HEDDLE_MODEL_INLINE inline async_lock_guard::~async_lock_guard() {
  if (m_ != nullptr) m_->unlock();
}
HEDDLE_MODEL_INLINE inline void async_lock_guard::unlock() {
  if (m_ != nullptr) std::exchange(m_, nullptr)->unlock();
}

// A counting semaphore for tasks: `co_await s.acquire()`, `s.release()`.
class async_semaphore {
 public:
  HEDDLE_MODEL_INLINE explicit async_semaphore(std::size_t initial) : initial_(initial), count_(initial) {}
  async_semaphore(const async_semaphore&) = delete;
  async_semaphore& operator=(const async_semaphore&) = delete;

  HEDDLE_MODEL_INLINE auto acquire(std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<void>([this, loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE { take(self, loc); });
  }
  // Throws operation_canceled when a stop is requested before a permit is taken.
  template <detail::tasks::stop_token_type Token>
  HEDDLE_MODEL_INLINE auto acquire(Token token, std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<void>([this, token = std::move(token), loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE {
      refresh();
      scheduling_point(point_kind::acquire, r_, loc);
      detail::tasks::cancel_link<Token> link(token, r_, waiters_, loc);
      while (count_ == 0) {
        if (link.requested(token, loc)) throw operation_canceled();
        if (!in_control()) detail::tasks::would_block_outside_control("async_semaphore::acquire");
        detail::tasks::async_wait(self, r_, waiters_, point_kind::acquire, std::nullopt, loc);
      }
      --count_;
      hb_acquire(r_);
    });
  }
  HEDDLE_MODEL_INLINE bool try_acquire(std::source_location loc = std::source_location::current()) {
    refresh();
    scheduling_point(point_kind::acquire, r_, loc);
    if (count_ == 0) return false;
    --count_;
    hb_acquire(r_);
    return true;
  }
  HEDDLE_MODEL_INLINE void release(std::size_t n = 1, std::source_location loc = std::source_location::current()) {
    refresh();
    scheduling_point(point_kind::release, r_, loc);
    hb_release(r_);
    count_ += n;
    detail::tasks::async_wake(r_, waiters_);
  }
  HEDDLE_MODEL_INLINE std::size_t available() const noexcept { return count_; }

 private:
  HEDDLE_MODEL_INLINE void refresh() {
    if (r_.stale()) {
      count_ = initial_;
      waiters_.clear();
      (void)r_.id();
    }
  }
  HEDDLE_MODEL_INLINE void take(detail::tasks::task_core* self, std::source_location loc) {
    refresh();
    scheduling_point(point_kind::acquire, r_, loc);
    while (count_ == 0) {
      if (!in_control()) detail::tasks::would_block_outside_control("async_semaphore::acquire");
      detail::tasks::async_wait(self, r_, waiters_, point_kind::acquire, std::nullopt, loc);
    }
    --count_;
    hb_acquire(r_);
  }
  resource r_{object_kind::semaphore};
  std::size_t initial_;
  std::size_t count_;
  detail::tasks::waiter_list waiters_;
};

// A manual-reset event for tasks: `co_await e.wait()` until someone set()s it.
class async_event {
 public:
  HEDDLE_MODEL_INLINE explicit async_event(bool initially_set = false) : initial_(initially_set), set_(initially_set) {}
  async_event(const async_event&) = delete;
  async_event& operator=(const async_event&) = delete;

  HEDDLE_MODEL_INLINE auto wait(std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<void>([this, loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE {
      refresh();
      scheduling_point(point_kind::wait, r_, loc);
      while (!set_) {
        if (!in_control()) detail::tasks::would_block_outside_control("async_event::wait");
        detail::tasks::async_wait(self, r_, waiters_, point_kind::wait, std::nullopt, loc);
      }
      hb_acquire(r_);
    });
  }
  // Throws operation_canceled when a stop is requested before the event is set.
  template <detail::tasks::stop_token_type Token>
  HEDDLE_MODEL_INLINE auto wait(Token token, std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<void>([this, token = std::move(token), loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE {
      refresh();
      scheduling_point(point_kind::wait, r_, loc);
      detail::tasks::cancel_link<Token> link(token, r_, waiters_, loc);
      while (!set_) {
        if (link.requested(token, loc)) throw operation_canceled();
        if (!in_control()) detail::tasks::would_block_outside_control("async_event::wait");
        detail::tasks::async_wait(self, r_, waiters_, point_kind::wait, std::nullopt, loc);
      }
      hb_acquire(r_);
    });
  }
  HEDDLE_MODEL_INLINE void set(std::source_location loc = std::source_location::current()) {
    refresh();
    scheduling_point(point_kind::signal, r_, loc);
    hb_release(r_);
    set_ = true;
    detail::tasks::async_wake(r_, waiters_);
  }
  HEDDLE_MODEL_INLINE void reset(std::source_location loc = std::source_location::current()) {
    refresh();
    scheduling_point(point_kind::write, r_, loc);
    set_ = false;
  }
  HEDDLE_MODEL_INLINE bool is_set() const noexcept { return set_; }

 private:
  HEDDLE_MODEL_INLINE void refresh() {
    if (r_.stale()) {
      set_ = initial_;
      waiters_.clear();
      (void)r_.id();
    }
  }
  resource r_{object_kind::condition_variable};
  bool initial_;
  bool set_;
  detail::tasks::waiter_list waiters_;
};

// A bounded channel of T for tasks. `co_await ch.send(v)` waits while the
// channel is full and throws channel_closed once it is closed;
// `co_await ch.receive()` waits while it is empty and open, and gives
// std::nullopt once it is closed and drained. close() wakes everyone waiting.
template <class T>
class channel {
 public:
  HEDDLE_MODEL_INLINE explicit channel(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;

  HEDDLE_MODEL_INLINE auto send(T value, std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<void>(
        [this, value = std::move(value), loc](detail::tasks::task_core* self) mutable HEDDLE_MODEL_INLINE {
          refresh();
          scheduling_point(point_kind::send, r_, loc);
          while (!closed_ && items_.size() >= capacity_) {
            if (!in_control()) detail::tasks::would_block_outside_control("channel::send");
            detail::tasks::async_wait(self, r_, waiters_, point_kind::send, std::nullopt, loc);
          }
          if (closed_) throw channel_closed();
          items_.push_back(std::move(value));
          hb_release(r_);
          detail::tasks::async_wake(r_, waiters_);
        });
  }
  HEDDLE_MODEL_INLINE auto receive(std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<std::optional<T>>([this, loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE {
      refresh();
      scheduling_point(point_kind::receive, r_, loc);
      while (!closed_ && items_.empty()) {
        if (!in_control()) detail::tasks::would_block_outside_control("channel::receive");
        detail::tasks::async_wait(self, r_, waiters_, point_kind::receive, std::nullopt, loc);
      }
      return take();
    });
  }
  // As receive(), and throws operation_canceled when a stop is requested
  // while it waits.
  template <detail::tasks::stop_token_type Token>
  HEDDLE_MODEL_INLINE auto receive(Token token, std::source_location loc = std::source_location::current()) {
    return detail::tasks::make_awaiter<std::optional<T>>(
        [this, token = std::move(token), loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE {
          refresh();
          scheduling_point(point_kind::receive, r_, loc);
          detail::tasks::cancel_link<Token> link(token, r_, waiters_, loc);
          while (!closed_ && items_.empty()) {
            if (link.requested(token, loc)) throw operation_canceled();
            if (!in_control()) detail::tasks::would_block_outside_control("channel::receive");
            detail::tasks::async_wait(self, r_, waiters_, point_kind::receive, std::nullopt, loc);
          }
          return take();
        });
  }
  HEDDLE_MODEL_INLINE bool try_send(T value, std::source_location loc = std::source_location::current()) {
    refresh();
    scheduling_point(point_kind::send, r_, loc);
    if (closed_ || items_.size() >= capacity_) return false;
    items_.push_back(std::move(value));
    hb_release(r_);
    detail::tasks::async_wake(r_, waiters_);
    return true;
  }
  HEDDLE_MODEL_INLINE std::optional<T> try_receive(std::source_location loc = std::source_location::current()) {
    refresh();
    scheduling_point(point_kind::receive, r_, loc);
    return take();
  }
  HEDDLE_MODEL_INLINE void close(std::source_location loc = std::source_location::current()) {
    refresh();
    if (closed_) {
      misuse("channel::close of a channel that is already closed", loc);
      return;
    }
    scheduling_point(point_kind::signal, r_, loc);
    closed_ = true;
    hb_release(r_);
    detail::tasks::async_wake(r_, waiters_);
  }
  HEDDLE_MODEL_INLINE bool closed() const noexcept { return closed_; }
  HEDDLE_MODEL_INLINE std::size_t size() const noexcept { return items_.size(); }
  HEDDLE_MODEL_INLINE std::size_t capacity() const noexcept { return capacity_; }

 private:
  HEDDLE_MODEL_INLINE void refresh() {
    if (r_.stale()) {
      items_.clear();
      closed_ = false;
      waiters_.clear();
      (void)r_.id();
    }
  }
  HEDDLE_MODEL_INLINE std::optional<T> take() {
    if (items_.empty()) return std::nullopt;
    hb_acquire(r_);
    std::optional<T> v(std::move(items_.front()));
    items_.pop_front();
    detail::tasks::async_wake(r_, waiters_);
    return v;
  }
  resource r_{object_kind::channel};
  std::size_t capacity_;
  std::deque<T> items_;
  bool closed_ = false;
  detail::tasks::waiter_list waiters_;
};

namespace detail::tasks {
wake_reason async_sleep(task_core* self, const resource& r, waiter_list& waiters, std::int64_t nanoseconds,
                        std::source_location loc);
}  // namespace detail::tasks

// co_await heddle::delay(d, token): delay(d), but a stop requested before it
// ends wakes the task at once, which then throws operation_canceled. A delay
// that has ended completes normally, whatever is requested after.
template <class Rep, class Period, detail::tasks::stop_token_type Token>
auto delay(std::chrono::duration<Rep, Period> d, Token token,
           std::source_location loc = std::source_location::current()) {
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  return detail::tasks::make_awaiter<void>([ns, token = std::move(token), loc](detail::tasks::task_core* self) HEDDLE_MODEL_INLINE {
    resource timer{object_kind::timer};
    detail::tasks::waiter_list waiters;
    detail::tasks::cancel_link<Token> link(token, timer, waiters, loc);
    if (link.requested(token, loc)) throw operation_canceled();
    // A delay that reached its end has completed, even if a stop was requested
    // before this task resumed: as in C#, a cancellation after completion is
    // no cancellation. Only a wake-up by the stop throws.
    if (detail::tasks::async_sleep(self, timer, waiters, ns, loc) == wake_reason::timeout) return;
    if (link.requested(token, loc)) throw operation_canceled();
  });
}

}  // namespace heddle
