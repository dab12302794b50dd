// heddle::task<T>: C++20 coroutine tasks under control (docs/tasks.md).
//
//   heddle::task<int> answer() { co_await heddle::yield(); co_return 42; }
//   heddle::task<void> caller() { int v = co_await answer(); ... }
//   HEDDLE_TEST(tasks, example) {
//     auto a = heddle::run(caller());   // Task.Run: a new operation in a new chain
//     a.get();                          // blocks the test body until a completes
//   }
//
// The model (docs/tasks.md has the whole of it):
// - A task is lazy. heddle::run starts it as a new operation in a new chain
//   (PCT^t), co_await of a task that has not started runs it inline, on the
//   awaiter's operation, and get()/wait()/when_all/when_any start it as run does.
// - Every resumption of a coroutine is a scheduling decision, and the code
//   after it runs as a new operation (engine::renew, no new fiber): after
//   heddle::yield() and heddle::delay() in the task's own chain; after
//   `co_await t` in the chain of whatever completed t (PCT^t's rule, Mukherjee
//   et al., OOPSLA 2020, section 3.2). pct sees a fresh priority at each
//   resumption, pctt keeps the chain's.
// - A co_await of a task that has not completed blocks the awaiting operation
//   until it completes; get() and wait() block the same way, but the blocked
//   operation keeps its identity and holds its thread_pool worker, as a thread
//   blocked on a task does: that is how sync-over-async deadlocks show.
// - Exceptions propagate to whoever awaits or gets the task; an exception of a
//   detached task is an uncaught_exception bug.
// Outside a controlled iteration a task started by run() runs at once to its
// end on the calling thread, and yield/delay do nothing.
#pragma once

#include <array>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "heddle/model.hpp"

namespace heddle {

template <class T = void>
class task;
class thread_pool;

namespace detail::tasks {

// A co_await (of one task, or when_all/when_any) blocked on tasks: the
// completion that makes it ready gives the blocked operation its new identity,
// in the completer's chain.
struct await_record {
  operation_id op = 0;
  std::uint32_t remaining = 0;
};

// The part of a task the runtime sees: in the coroutine's promise (a
// task_completion_source keeps one without a coroutine).
struct task_core {
  resource finished{object_kind::task};  // signalled once, when the task completes
  std::coroutine_handle<> frame;              // null for a task_completion_source
  std::coroutine_handle<> continuation;       // the awaiter that started it inline
  std::exception_ptr error;
  thread_pool* pool = nullptr;                // its resumptions need a worker of this pool
  std::vector<await_record*> waiters;         // co_awaits blocked on it
  std::string name;                           // the operation's name when run()
  std::source_location started_at;
  std::uint64_t completed_seq = 0;            // completion order within the iteration (when_any)
  std::uint32_t completer_chain = 0;          // the chain of the operation that completed it
  std::uint32_t refs = 1;                     // handles, plus the operation that runs it
  std::uint32_t epoch = 0;                    // the iteration it started in
  bool started = false;
  bool done = false;
  bool awaited = false;   // awaited, waited for, or detached: never an "unawaited" task
  bool spawned = false;   // runs as an operation of its own (run, detach, a pool)
  bool detached = false;  // an exception is an uncaught_exception bug
  bool registered = false;  // in the iteration's list of spawned tasks
};

// src/runtime/task_runtime.cpp
void start(task_core& t, std::string name, std::source_location loc);
void complete(task_core& t) noexcept;
void await_task(task_core* self, task_core& t, std::source_location loc);
std::size_t await_tasks(task_core* self, std::span<task_core* const> ts, bool any, std::source_location loc);
void resumed_after_inline(task_core* self, task_core& child, std::source_location loc);
void wait_task(task_core& t, std::source_location loc);
void yield(task_core* self, std::source_location loc);
void delay(task_core* self, std::int64_t nanoseconds, std::source_location loc);
void release(task_core& t) noexcept;
void forget(task_core& t) noexcept;  // its frame is being destroyed
void check_unawaited(std::source_location loc) noexcept;
// The pool a resumption needs a worker of (none: null).
void pool_acquire(thread_pool* pool, std::source_location loc);
void pool_release(thread_pool* pool) noexcept;
// Coroutine frames: from this thread's cache of freed frames of about the
// same size when it has one, else from operator new (task_runtime.cpp).
void* allocate_frame(std::size_t size);
void free_frame(void* frame, std::size_t size) noexcept;

struct yield_awaitable {
  std::source_location loc;
};
struct delay_awaitable {
  std::int64_t nanoseconds;
  std::source_location loc;
};

template <class T>
struct promise;

// What `co_await t` runs in a task.
template <class T, bool rvalue>
struct task_awaiter {
  task_core* t;
  task_core* self;
  std::source_location loc;
  bool inline_started = false;

  HEDDLE_MODEL_INLINE bool await_ready() {
    if (!t->started) return false;
    await_task(self, *t, loc);
    return true;
  }
  HEDDLE_MODEL_INLINE std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    // Not started: it runs inline, on this operation, and resumes us when done.
    inline_started = true;
    t->started = true;
    t->awaited = true;
    t->continuation = awaiting;
    t->pool = self != nullptr ? self->pool : nullptr;
    t->epoch = control.epoch;
    return t->frame;
  }
  HEDDLE_MODEL_INLINE decltype(auto) await_resume() {
    if (inline_started) resumed_after_inline(self, *t, loc);
    if (t->error) std::rethrow_exception(t->error);
    auto& p = std::coroutine_handle<promise<T>>::from_address(t->frame.address()).promise();
    if constexpr (std::is_void_v<T>) {
      return;
    } else if constexpr (rvalue) {
      return T(std::move(*p.value));
    } else {
      return static_cast<T&>(*p.value);
    }
  }
};

template <class T>
struct is_task : std::false_type {};
template <class T>
struct is_task<task<T>> : std::true_type {};

template <bool any>
struct task_set;
// What promise_base::await_transform handles itself.
template <class T>
struct is_runtime_awaitable : is_task<T> {};
template <>
struct is_runtime_awaitable<yield_awaitable> : std::true_type {};
template <>
struct is_runtime_awaitable<delay_awaitable> : std::true_type {};
template <bool any>
struct is_runtime_awaitable<task_set<any>> : std::true_type {};

// Awaitables of when_all/when_any.
template <bool any>
struct task_set {
  std::vector<task_core*> cores;
};
template <bool any>
struct task_set_awaiter {
  task_set<any> set;
  task_core* self;
  std::source_location loc;
  HEDDLE_MODEL_INLINE bool await_ready() const noexcept { return false; }
  HEDDLE_MODEL_INLINE bool await_suspend(std::coroutine_handle<>) { return false; }  // never suspends: blocks in await_resume
  HEDDLE_MODEL_INLINE auto await_resume() {
    const std::size_t index = await_tasks(self, set.cores, any, loc);
    if constexpr (any) {
      return index;
    } else {
      for (task_core* c : set.cores)
        if (c->error) std::rethrow_exception(c->error);
    }
  }
};

// Awaitables that may block (async.hpp) take the awaiting task's core through
// this member, so that a blocked coroutine gives its pool worker back.
template <class A>
concept binds_task = requires(A& a, task_core* t) { a.bind_task(t); };

struct promise_base {
  task_core core;

  // A child task that completes at once allocates and frees its frame each
  // time: a frame freed on this thread is kept for the next (allocate_frame).
  HEDDLE_MODEL_INLINE static void* operator new(std::size_t size) { return allocate_frame(size); }
  HEDDLE_MODEL_INLINE static void operator delete(void* frame, std::size_t size) noexcept { free_frame(frame, size); }

  HEDDLE_MODEL_INLINE std::suspend_always initial_suspend() noexcept { return {}; }
  struct final_awaiter {
    HEDDLE_MODEL_INLINE bool await_ready() const noexcept { return false; }
    template <class P>
    HEDDLE_MODEL_INLINE std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      task_core& c = h.promise().core;
      complete(c);
      if (c.continuation) return c.continuation;
      return std::noop_coroutine();
    }
    HEDDLE_MODEL_INLINE void await_resume() const noexcept {}
  };
  HEDDLE_MODEL_INLINE final_awaiter final_suspend() noexcept { return {}; }
  HEDDLE_MODEL_INLINE void unhandled_exception() {
    std::exception_ptr e = std::current_exception();
    if (is_unwind_exception(e)) throw;  // the end of the iteration: let it unwind the operation
    core.error = std::move(e);
  }

  // Every co_await in a task goes through here: the runtime needs to know
  // which task awaits (its pool, its chain).
  HEDDLE_MODEL_INLINE auto await_transform(yield_awaitable y) {
    struct awaiter {
      task_core* self;
      std::source_location loc;
      HEDDLE_MODEL_INLINE bool await_ready() { yield(self, loc); return true; }
      HEDDLE_MODEL_INLINE void await_suspend(std::coroutine_handle<>) noexcept {}
      HEDDLE_MODEL_INLINE void await_resume() const noexcept {}
    };
    return awaiter{&core, y.loc};
  }
  HEDDLE_MODEL_INLINE auto await_transform(delay_awaitable d) {
    struct awaiter {
      task_core* self;
      delay_awaitable d;
      HEDDLE_MODEL_INLINE bool await_ready() { delay(self, d.nanoseconds, d.loc); return true; }
      HEDDLE_MODEL_INLINE void await_suspend(std::coroutine_handle<>) noexcept {}
      HEDDLE_MODEL_INLINE void await_resume() const noexcept {}
    };
    return awaiter{&core, d};
  }
  template <class T>
  task_awaiter<T, false> await_transform(task<T>& t, std::source_location loc = std::source_location::current());
  template <class T>
  task_awaiter<T, true> await_transform(task<T>&& t, std::source_location loc = std::source_location::current());
  template <bool any>
  HEDDLE_MODEL_INLINE task_set_awaiter<any> await_transform(task_set<any> s, std::source_location loc = std::source_location::current()) {
    return {std::move(s), &core, loc};
  }
  template <class A>
    requires(!is_runtime_awaitable<std::remove_cvref_t<A>>::value)
  HEDDLE_MODEL_INLINE A&& await_transform(A&& a) {
    if constexpr (binds_task<std::remove_reference_t<A>>) a.bind_task(&core);
    return std::forward<A>(a);
  }
};

template <class T>
struct promise final : promise_base {
  std::optional<T> value;
  task<T> get_return_object() noexcept;
  template <class U = T>
    requires std::is_convertible_v<U&&, T>
  HEDDLE_MODEL_INLINE void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  HEDDLE_MODEL_INLINE ~promise() { forget(core); }
};

template <>
struct promise<void> final : promise_base {
  task<void> get_return_object() noexcept;
  HEDDLE_MODEL_INLINE void return_void() noexcept {}
  HEDDLE_MODEL_INLINE ~promise() { forget(core); }
};

}  // namespace detail::tasks

// A coroutine task: a move-only handle to a lazily started coroutine. The
// coroutine's frame lives while a handle or the operation running it does.
template <class T>
class [[nodiscard]] task {
  static_assert(!std::is_reference_v<T>, "heddle::task<T&> is not supported: return a pointer or a value");

 public:
  using promise_type = detail::tasks::promise<T>;
  using value_type = T;

  task() noexcept = default;
  HEDDLE_MODEL_INLINE task(task&& other) noexcept : h_(std::exchange(other.h_, {})) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      reset();
      h_ = std::exchange(other.h_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  HEDDLE_MODEL_INLINE ~task() { reset(); }

  HEDDLE_MODEL_INLINE bool valid() const noexcept { return static_cast<bool>(h_); }
  HEDDLE_MODEL_INLINE bool started() const noexcept { return h_ && h_.promise().core.started; }
  // Completed, with a value or an exception (no scheduling point).
  HEDDLE_MODEL_INLINE bool done() const noexcept { return h_ && h_.promise().core.done; }

  // Blocks the calling operation until the task completes (starting it as
  // run() does if it has not started), then rethrows its exception. From a
  // task, this blocks the task's operation (and its pool worker): prefer co_await.
  HEDDLE_MODEL_INLINE void wait(std::source_location loc = std::source_location::current()) {
    detail::tasks::wait_task(core(), loc);
    if (core().error) std::rethrow_exception(core().error);
  }
  // wait(), then the value.
  decltype(auto) get(std::source_location loc = std::source_location::current()) & {
    wait(loc);
    if constexpr (!std::is_void_v<T>) return static_cast<T&>(*h_.promise().value);
  }
  decltype(auto) get(std::source_location loc = std::source_location::current()) && {
    wait(loc);
    if constexpr (!std::is_void_v<T>) return T(std::move(*h_.promise().value));
  }

  // For the runtime and the free functions below.
  HEDDLE_MODEL_INLINE detail::tasks::task_core& core() const noexcept { return h_.promise().core; }

 private:
  friend struct detail::tasks::promise<T>;
  HEDDLE_MODEL_INLINE explicit task(std::coroutine_handle<promise_type> h) noexcept : h_(h) {}
  HEDDLE_MODEL_INLINE void reset() noexcept {
    if (h_) detail::tasks::release(h_.promise().core);
    h_ = {};
  }
  std::coroutine_handle<promise_type> h_;
};

namespace detail::tasks {
template <class T>
HEDDLE_MODEL_INLINE task<T> promise<T>::get_return_object() noexcept {
  core.frame = std::coroutine_handle<promise<T>>::from_promise(*this);
  return task<T>(std::coroutine_handle<promise<T>>::from_promise(*this));
}
HEDDLE_MODEL_INLINE inline task<void> promise<void>::get_return_object() noexcept {
  core.frame = std::coroutine_handle<promise<void>>::from_promise(*this);
  return task<void>(std::coroutine_handle<promise<void>>::from_promise(*this));
}
template <class T>
HEDDLE_MODEL_INLINE task_awaiter<T, false> promise_base::await_transform(task<T>& t, std::source_location loc) {
  return {&t.core(), &core, loc};
}
template <class T>
HEDDLE_MODEL_INLINE task_awaiter<T, true> promise_base::await_transform(task<T>&& t, std::source_location loc) {
  return {&t.core(), &core, loc};
}
}  // namespace detail::tasks

// Task.Run: starts `t` as a new operation in a new chain and returns its
// handle. Dropping the handle leaves the task running (fire and forget).
template <class T>
HEDDLE_MODEL_INLINE task<T> run(task<T> t, std::string name = "task", std::source_location loc = std::source_location::current()) {
  detail::tasks::start(t.core(), std::move(name), loc);
  return t;
}

// Starts `t` as run() does and lets it go: nobody awaits it, and an
// exception it throws is an uncaught_exception bug.
template <class T>
HEDDLE_MODEL_INLINE void detach(task<T> t, std::string name = "task", std::source_location loc = std::source_location::current()) {
  t.core().detached = true;
  t.core().awaited = true;
  detail::tasks::start(t.core(), std::move(name), loc);
}

// co_await heddle::yield(): lets other operations run; the task goes on in
// its own chain.
HEDDLE_MODEL_INLINE inline detail::tasks::yield_awaitable yield(std::source_location loc = std::source_location::current()) {
  return {loc};
}

// co_await heddle::delay(d): waits `d` of virtual time. As for every timed
// wait, the strategy decides when the sleeper runs again.
template <class Rep, class Period>
detail::tasks::delay_awaitable delay(std::chrono::duration<Rep, Period> d,
                                     std::source_location loc = std::source_location::current()) {
  return {std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(), loc};
}

// co_await heddle::when_all(a, b, ...): completes when every task has (tasks
// not started yet are started as by run()); rethrows the first exception in
// argument order. The continuation joins the chain of the last to complete.
template <class... T>
HEDDLE_MODEL_INLINE detail::tasks::task_set<false> when_all(task<T>&... ts) {
  return {{&ts.core()...}};
}
template <class T>
HEDDLE_MODEL_INLINE detail::tasks::task_set<false> when_all(std::vector<task<T>>& ts) {
  detail::tasks::task_set<false> s;
  for (task<T>& t : ts) s.cores.push_back(&t.core());
  return s;
}
// co_await heddle::when_any(a, b, ...): the index of the first task to
// complete. The others keep running, as in C#; the continuation joins the
// winner's chain.
template <class... T>
HEDDLE_MODEL_INLINE detail::tasks::task_set<true> when_any(task<T>&... ts) {
  return {{&ts.core()...}};
}
template <class T>
HEDDLE_MODEL_INLINE detail::tasks::task_set<true> when_any(std::vector<task<T>>& ts) {
  detail::tasks::task_set<true> s;
  for (task<T>& t : ts) s.cores.push_back(&t.core());
  return s;
}

// From code that is not a task (a test body, a thread): blocks until every
// task has completed, then rethrows the first exception in argument order.
template <class T, class... U>
HEDDLE_MODEL_INLINE void wait_all(task<T>& first, task<U>&... rest) {
  detail::tasks::wait_task(first.core(), std::source_location::current());
  (detail::tasks::wait_task(rest.core(), std::source_location::current()), ...);
  if (first.core().error) std::rethrow_exception(first.core().error);
  ((rest.core().error ? std::rethrow_exception(rest.core().error) : void()), ...);
}

// A controlled thread pool of N workers. A task run on it needs a free worker
// to start and after every resumption; co_await, yield and delay give the
// worker back while the task waits, but a blocking get()/wait() keeps it, so
// blocking on a task inside a pool whose workers are all busy is a deadlock,
// reported with who waits for what (the pool's workers appear as a semaphore).
class thread_pool {
 public:
  explicit thread_pool(std::size_t workers, std::string name = "pool")
      : size_(workers == 0 ? 1 : workers), name_(std::move(name)) {}
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  // run() on this pool: a new operation in a new chain, needing a worker.
  template <class T>
  HEDDLE_MODEL_INLINE task<T> run(task<T> t, std::string name = "task", std::source_location loc = std::source_location::current()) {
    t.core().pool = this;
    detail::tasks::start(t.core(), std::move(name), loc);
    return t;
  }
  HEDDLE_MODEL_INLINE std::size_t size() const noexcept { return size_; }
  HEDDLE_MODEL_INLINE const std::string& name() const noexcept { return name_; }

 private:
  friend void detail::tasks::pool_acquire(thread_pool*, std::source_location);
  friend void detail::tasks::pool_release(thread_pool*) noexcept;
  resource workers_{object_kind::semaphore};
  std::size_t size_;
  std::size_t busy_ = 0;  // valid in the iteration workers_ was last used in
  std::string name_;
};

// A promise for a task<T> that something other than a coroutine completes
// (a callback, another thread). Setting it twice is API misuse, as C#'s
// SetResult is an InvalidOperationException.
template <class T = void>
class task_completion_source {
  struct state {
    detail::tasks::task_core core;
    std::optional<std::conditional_t<std::is_void_v<T>, bool, T>> value;
  };

 public:
  HEDDLE_MODEL_INLINE task_completion_source() : s_(std::make_shared<state>()) {
    s_->core.started = true;
    s_->core.awaited = true;
    s_->core.epoch = detail::control.epoch;
  }

  // A task that completes when this source is set (each call gives a new
  // handle on the same result).
  HEDDLE_MODEL_INLINE task<T> get_task() { return wait_for(s_); }

  template <class U = T>
    requires(!std::is_void_v<U>)
  HEDDLE_MODEL_INLINE void set_value(U v, std::source_location loc = std::source_location::current()) {
    if (!try_set_value(std::move(v), loc))
      misuse("task_completion_source::set_value called on a source that is already completed", loc);
  }
  void set_value(std::source_location loc = std::source_location::current())
    requires std::is_void_v<T>
  {
    if (!try_set_value(loc))
      misuse("task_completion_source::set_value called on a source that is already completed", loc);
  }
  HEDDLE_MODEL_INLINE void set_exception(std::exception_ptr e, std::source_location loc = std::source_location::current()) {
    if (!try_set_exception(std::move(e), loc))
      misuse("task_completion_source::set_exception called on a source that is already completed", loc);
  }
  template <class U = T>
    requires(!std::is_void_v<U>)
  HEDDLE_MODEL_INLINE bool try_set_value(U v, std::source_location loc = std::source_location::current()) {
    scheduling_point(point_kind::signal, s_->core.finished, loc);
    if (s_->core.done) return false;
    s_->value.emplace(std::move(v));
    detail::tasks::complete(s_->core);
    return true;
  }
  bool try_set_value(std::source_location loc = std::source_location::current())
    requires std::is_void_v<T>
  {
    scheduling_point(point_kind::signal, s_->core.finished, loc);
    if (s_->core.done) return false;
    s_->value.emplace(true);
    detail::tasks::complete(s_->core);
    return true;
  }
  HEDDLE_MODEL_INLINE bool try_set_exception(std::exception_ptr e, std::source_location loc = std::source_location::current()) {
    scheduling_point(point_kind::signal, s_->core.finished, loc);
    if (s_->core.done) return false;
    s_->core.error = std::move(e);
    detail::tasks::complete(s_->core);
    return true;
  }

 private:
  struct core_awaiter {
    detail::tasks::task_core* t;
    detail::tasks::task_core* self = nullptr;
    std::source_location loc;
    HEDDLE_MODEL_INLINE void bind_task(detail::tasks::task_core* s) noexcept { self = s; }
    HEDDLE_MODEL_INLINE bool await_ready() {
      detail::tasks::await_task(self, *t, loc);
      return true;
    }
    HEDDLE_MODEL_INLINE void await_suspend(std::coroutine_handle<>) noexcept {}
    HEDDLE_MODEL_INLINE void await_resume() const {
      if (t->error) std::rethrow_exception(t->error);
    }
  };
  static task<T> wait_for(std::shared_ptr<state> s) {
    co_await core_awaiter{&s->core, nullptr, std::source_location::current()};
    if constexpr (!std::is_void_v<T>) co_return *s->value;
  }
  std::shared_ptr<state> s_;
};

// Opt-in check that every task started with run() is awaited: declare one at
// the top of a test body. When it goes out of scope (the body's end), a task
// that was started, never awaited, waited for or detached, and has not
// completed is a `liveness` bug naming the task (Coyote's check of
// uncompleted tasks at the end of a test).
class unawaited_task_check {
 public:
  HEDDLE_MODEL_INLINE explicit unawaited_task_check(std::source_location loc = std::source_location::current()) noexcept : loc_(loc) {}
  unawaited_task_check(const unawaited_task_check&) = delete;
  unawaited_task_check& operator=(const unawaited_task_check&) = delete;
  HEDDLE_MODEL_INLINE ~unawaited_task_check() { detail::tasks::check_unawaited(loc_); }

 private:
  std::source_location loc_;
};

}  // namespace heddle
