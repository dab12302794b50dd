// heddle::asio::io_context: an Asio execution context whose handlers run as
// controlled steps, and its executor (heddle::asio::executor, also spelled
// heddle::asio_executor).
//
// Built on Debian's standalone Asio (libasio-dev, <asio.hpp>, Asio 1.22): the
// executor meets Asio's standard executor requirements (execute, query,
// require) and the Networking TS ones (context, on_work_started, dispatch,
// post, defer), so asio::post, asio::dispatch, asio::defer, asio::co_spawn,
// asio::any_io_executor and asio::make_strand take it as they take
// asio::io_context's. Nothing of Asio's own scheduler, reactor or timer queue
// runs: handlers wait in this context's queue, and each thread inside run()
// takes them in order, as Asio's scheduler does.
//
// The contract (docs/asio.md has the whole table):
// - A handler is taken from the queue front (FIFO) by a thread inside run(),
//   and its first step is a scheduling point (`receive` on the context's
//   handler queue, a `channel` object in reports), so handlers taken by
//   different run() threads interleave at every point they reach, in any
//   order; with one run() thread they run one after another in posting order.
// - asio::post and asio::defer are a `send` point, then the enqueue. A
//   dispatch (blocking.possibly) runs the function at once when the caller is
//   inside run() of this context, as Asio does, and posts it otherwise.
// - Outstanding work is counted as Asio counts it (queued handlers, pending
//   timer waits, executors that track work); run() returns when it reaches 0
//   and leaves the context stopped until restart().
// - A run() with nothing to do while work is outstanding blocks on the queue:
//   a run() nothing will ever feed is reported as a deadlock, not a hang.
// Only under control: outside a controlled iteration every call reports misuse
// (prints and aborts). Create the context in the test body.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <source_location>
#include <type_traits>
#include <utility>
#include <vector>

#include <asio/execution.hpp>
#include <asio/execution_context.hpp>

#include "heddle/chrono.hpp"
#include "heddle/model.hpp"

namespace heddle::asio {

class io_context;

namespace detail {

// A handler waiting in a queue: a type-erased, move-only callable that runs
// once. Asio's handlers are often move-only (coroutine handlers, lambdas
// holding unique_ptrs), so std::function does not do.
class queued_handler {
 public:
  queued_handler() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, queued_handler>>>
  explicit queued_handler(F&& f) : impl_(new impl<std::decay_t<F>>(std::forward<F>(f))) {}
  explicit operator bool() const noexcept { return impl_ != nullptr; }
  // Runs the handler; it is destroyed when this object is.
  void operator()() { impl_->run(); }

 private:
  struct base {
    virtual ~base() = default;
    virtual void run() = 0;
  };
  template <class F>
  struct impl final : base {
    template <class G>
    explicit impl(G&& g) : f(std::forward<G>(g)) {}
    void run() override { std::move(f)(); }
    F f;
  };
  std::unique_ptr<base> impl_;
};

// A timer wait's completion: the handler, and the work it keeps on the
// handler's executor. complete() delivers it through that executor.
class timer_completion {
 public:
  virtual ~timer_completion() = default;
  virtual void complete(bool aborted) = 0;
};

class strand_core;

// The context's state, shared with the operation that fires its timers (so a
// context destroyed while that operation sleeps stays valid for it), and with
// its strands and timers. Every member is touched by one operation at a time:
// the engine runs one at a time and none of these functions has a scheduling
// point between a check and the update it guards.
class context_core : public std::enable_shared_from_this<context_core> {
 public:
  context_core();
  ~context_core();
  context_core(const context_core&) = delete;
  context_core& operator=(const context_core&) = delete;

  // Outstanding work, as Asio counts it; reaching 0 stops the context.
  void work_started() noexcept { ++outstanding_work_; }
  void work_finished() noexcept;
  // The running operation is inside run() (or run_one, poll...) of this context.
  bool running_in_this_thread() const noexcept;

  // A `send` point on the queue, then the handler goes to the back
  // (`continuation`: a defer from one of this context's handlers goes to that
  // run() thread's private queue, flushed when the handler returns, as Asio's).
  void post(queued_handler h, bool continuation, std::source_location loc);
  // The same without the point: for a caller that has just had one.
  void enqueue(queued_handler h, bool continuation);

  // run(), run_one(), poll(), poll_one(), run_until(): at most `limit`
  // handlers; `block`: wait while work is outstanding; `deadline`: stop
  // waiting then (virtual time).
  std::size_t run(std::size_t limit, bool block, std::optional<virtual_time> deadline, std::source_location loc);
  void stop(std::source_location loc);
  bool stopped() const noexcept { return stopped_; }
  void restart() noexcept { stopped_ = false; }
  // The context's destruction: queued handlers, pending waits and the queues
  // of its strands are destroyed without running, as Asio's shutdown does.
  void shutdown() noexcept;

  // Timers: a pending wait of `timer` completes at `expiry` (virtual time),
  // when the strategy lets the context's timer operation run, or earlier
  // with `aborted` when cancelled.
  void add_wait(const void* timer, virtual_time expiry, std::unique_ptr<timer_completion> completion);
  std::size_t cancel_waits(const void* timer, bool only_one) noexcept;
  std::size_t pending_waits(const void* timer) const noexcept;

  void add_strand(const std::shared_ptr<strand_core>& s);
  const resource& queue_resource() const noexcept { return queue_; }

  // Every call from outside control lands here: one line and abort.
  [[noreturn]] static void outside_control(const char* what, std::source_location loc);

 private:
  struct runner {
    operation_id op = 0;
    std::vector<queued_handler> deferred;  // defer()s of the handler it runs
  };
  struct pending_wait {
    const void* timer;
    virtual_time expiry;
    std::uint64_t order;  // ties of expiry fire in the order the waits started
    std::unique_ptr<timer_completion> completion;
  };
  class runner_scope;
  class handler_scope;
  void push(queued_handler h);
  void wake_runners() noexcept;
  void serve_timers();
  void fire_expired();
  void complete_wait(pending_wait& w, bool aborted);

  resource queue_{object_kind::channel};  // the handler queue; run() waits on it
  resource timers_{object_kind::timer};   // the timer operation waits on it
  std::deque<queued_handler> queue_handlers_;
  std::vector<runner*> runners_;  // threads inside run(), each frame on its own stack
  std::int64_t outstanding_work_ = 0;
  bool stopped_ = false;
  bool shut_down_ = false;
  std::vector<pending_wait> waits_;
  std::uint64_t next_wait_order_ = 0;
  bool timer_operation_alive_ = false;
  std::vector<std::weak_ptr<strand_core>> strands_;
};

}  // namespace detail

// The executor of a heddle::asio::io_context. Its properties are those of
// asio::io_context::executor_type: blocking.possibly by default (execute runs
// the function at once inside this context's run(), else posts it),
// blocking.never (always posts), relationship.fork/continuation (defer),
// outstanding_work.untracked/tracked (a tracked copy keeps run() running),
// mapping.thread. Kept at run time in one type, so require() never changes
// the type.
class executor {
 public:
  executor() noexcept = default;
  explicit executor(io_context& ctx) noexcept : ctx_(&ctx) {}
  executor(const executor& other) noexcept : ctx_(other.ctx_), bits_(other.bits_) { track(); }
  executor(executor&& other) noexcept : ctx_(other.ctx_), bits_(other.bits_) {
    other.bits_ = static_cast<std::uint8_t>(other.bits_ & ~tracked);  // the work moves with it
  }
  executor& operator=(const executor& other) noexcept {
    if (this != &other) {
      executor copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  executor& operator=(executor&& other) noexcept {
    if (this != &other) {
      untrack();
      ctx_ = other.ctx_;
      bits_ = other.bits_;
      other.bits_ = static_cast<std::uint8_t>(other.bits_ & ~tracked);
    }
    return *this;
  }
  ~executor() { untrack(); }

  // Standard executors.
  template <class Function>
  void execute(Function&& f) const;
  io_context& query(::asio::execution::context_t) const noexcept { return *ctx_; }
  ::asio::execution::blocking_t query(::asio::execution::blocking_t) const noexcept {
    return (bits_ & never) != 0 ? ::asio::execution::blocking_t(::asio::execution::blocking.never)
                                : ::asio::execution::blocking_t(::asio::execution::blocking.possibly);
  }
  ::asio::execution::relationship_t query(::asio::execution::relationship_t) const noexcept {
    return (bits_ & continuation) != 0 ? ::asio::execution::relationship_t(::asio::execution::relationship.continuation)
                                       : ::asio::execution::relationship_t(::asio::execution::relationship.fork);
  }
  ::asio::execution::outstanding_work_t query(::asio::execution::outstanding_work_t) const noexcept {
    return (bits_ & tracked) != 0 ? ::asio::execution::outstanding_work_t(::asio::execution::outstanding_work.tracked)
                                  : ::asio::execution::outstanding_work_t(::asio::execution::outstanding_work.untracked);
  }
  static constexpr ::asio::execution::mapping_t query(::asio::execution::mapping_t) noexcept {
    return ::asio::execution::mapping.thread;
  }
  executor require(::asio::execution::blocking_t::never_t) const { return with(never, true); }
  executor require(::asio::execution::blocking_t::possibly_t) const { return with(never, false); }
  executor require(::asio::execution::relationship_t::fork_t) const { return with(continuation, false); }
  executor require(::asio::execution::relationship_t::continuation_t) const { return with(continuation, true); }
  executor require(::asio::execution::outstanding_work_t::tracked_t) const { return with(tracked, true); }
  executor require(::asio::execution::outstanding_work_t::untracked_t) const { return with(tracked, false); }

  // Networking TS executors.
  io_context& context() const noexcept { return *ctx_; }
  void on_work_started() const noexcept;
  void on_work_finished() const noexcept;
  template <class Function, class Allocator>
  void dispatch(Function&& f, const Allocator&) const {
    require(::asio::execution::blocking.possibly).execute(std::forward<Function>(f));
  }
  template <class Function, class Allocator>
  void post(Function&& f, const Allocator&) const {
    with(never, true).with(continuation, false).execute(std::forward<Function>(f));
  }
  template <class Function, class Allocator>
  void defer(Function&& f, const Allocator&) const {
    with(never, true).with(continuation, true).execute(std::forward<Function>(f));
  }

  // The running operation is inside run() of this executor's context.
  bool running_in_this_thread() const noexcept;

  friend bool operator==(const executor& a, const executor& b) noexcept { return a.ctx_ == b.ctx_; }
  friend bool operator!=(const executor& a, const executor& b) noexcept { return a.ctx_ != b.ctx_; }

 private:
  static constexpr std::uint8_t never = 1, continuation = 2, tracked = 4;
  executor(io_context* ctx, std::uint8_t bits) noexcept : ctx_(ctx), bits_(bits) { track(); }
  executor with(std::uint8_t bit, bool on) const {
    return executor(ctx_, static_cast<std::uint8_t>(on ? (bits_ | bit) : (bits_ & ~bit)));
  }
  void track() const noexcept;
  void untrack() noexcept;

  io_context* ctx_ = nullptr;
  std::uint8_t bits_ = 0;
};


namespace detail {
// How a timer finds heddle's state behind any executor of the context
// (asio::execution_context is not polymorphic): a service of the context.
class core_service final : public ::asio::execution_context::service {
 public:
  inline static ::asio::execution_context::id id;
  core_service(::asio::execution_context& owner, std::shared_ptr<context_core> state)
      : ::asio::execution_context::service(owner), core(std::move(state)) {}
  // Asio's use_service needs it; heddle asks has_service first.
  explicit core_service(::asio::execution_context& owner) : ::asio::execution_context::service(owner) {}
  void shutdown() override {
    if (core) core->shutdown();
  }
  std::shared_ptr<context_core> core;
};
}  // namespace detail

class io_context : public ::asio::execution_context {
 public:
  using executor_type = executor;
  using count_type = std::size_t;

  io_context() : core_(std::make_shared<detail::context_core>()) {
    ::asio::add_service(*this, new detail::core_service(*this, core_));
  }
  // Asio's concurrency hint changes no guarantee heddle models: ignored.
  explicit io_context(int /*concurrency_hint*/) : io_context() {}
  io_context(const io_context&) = delete;
  io_context& operator=(const io_context&) = delete;
  ~io_context() {
    core_->shutdown();
    shutdown();  // Asio's services (a real asio::strand's, say), before this object goes
  }

  executor_type get_executor() noexcept { return executor_type(*this); }

  // Runs handlers until the work runs out or stop(); returns how many ran.
  count_type run(std::source_location loc = std::source_location::current()) {
    return core_->run(static_cast<std::size_t>(-1), true, std::nullopt, loc);
  }
  count_type run_one(std::source_location loc = std::source_location::current()) {
    return core_->run(1, true, std::nullopt, loc);
  }
  // As run(), but gives up waiting at the (virtual) deadline.
  template <class Rep, class Period>
  count_type run_for(const std::chrono::duration<Rep, Period>& d,
                     std::source_location loc = std::source_location::current()) {
    return core_->run(static_cast<std::size_t>(-1), true, heddle::chrono::deadline_after(d), loc);
  }
  template <class Clock, class Duration>
  count_type run_until(const std::chrono::time_point<Clock, Duration>& t,
                       std::source_location loc = std::source_location::current()) {
    return core_->run(static_cast<std::size_t>(-1), true, heddle::chrono::deadline_at(t), loc);
  }
  // Runs the handlers queued now, without waiting.
  count_type poll(std::source_location loc = std::source_location::current()) {
    return core_->run(static_cast<std::size_t>(-1), false, std::nullopt, loc);
  }
  count_type poll_one(std::source_location loc = std::source_location::current()) {
    return core_->run(1, false, std::nullopt, loc);
  }
  void stop(std::source_location loc = std::source_location::current()) { core_->stop(loc); }
  bool stopped() const noexcept { return core_->stopped(); }
  void restart() noexcept { core_->restart(); }

  // heddle's side: the state strands and timers share.
  const std::shared_ptr<detail::context_core>& core() const noexcept { return core_; }

 private:
  std::shared_ptr<detail::context_core> core_;
};

template <class Function>
void executor::execute(Function&& f) const {
  detail::context_core& core = *ctx_->core();
  if ((bits_ & never) == 0 && core.running_in_this_thread()) {
    // Asio's dispatch inside the context: the function runs here and now.
    std::decay_t<Function> local(std::forward<Function>(f));
    std::move(local)();
    return;
  }
  core.post(detail::queued_handler(std::forward<Function>(f)), (bits_ & continuation) != 0,
            std::source_location::current());
}

inline void executor::on_work_started() const noexcept {
  if (ctx_ != nullptr) ctx_->core()->work_started();
}
inline void executor::on_work_finished() const noexcept {
  if (ctx_ != nullptr) ctx_->core()->work_finished();
}
inline void executor::track() const noexcept {
  if ((bits_ & tracked) != 0 && ctx_ != nullptr) ctx_->core()->work_started();
}
inline void executor::untrack() noexcept {
  if ((bits_ & tracked) != 0 && ctx_ != nullptr) ctx_->core()->work_finished();
  bits_ = static_cast<std::uint8_t>(bits_ & ~tracked);
}
inline bool executor::running_in_this_thread() const noexcept {
  return ctx_ != nullptr && ctx_->core()->running_in_this_thread();
}

}  // namespace heddle::asio

namespace heddle {
// The executor under the name of issue 17.
using asio_executor = asio::executor;
}  // namespace heddle
