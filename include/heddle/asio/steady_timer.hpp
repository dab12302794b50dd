// heddle::asio::steady_timer: asio::steady_timer's interface on heddle's
// virtual clock, for a heddle::asio::io_context.
//
// asio::steady_timer itself cannot be controlled: it lives in Asio's timer
// service and reactor, reads the real clock and completes on Asio's own
// scheduler. This class keeps its interface (expires_after, expires_at,
// expiry, cancel, cancel_one, wait, async_wait with any completion token:
// callbacks, asio::use_awaitable, asio::deferred...), so code written against
// it switches with an alias (docs/asio.md). Contract:
// - Time is heddle::chrono::steady_clock, virtual under control. A pending
//   wait completes when the context's timer operation fires it: that
//   operation is enabled with the earliest expiry as its deadline, so the
//   strategy picks the moment (the clock jumps to the expiry), and the
//   handler goes to the back of the context's queue. Timers of one context
//   fire in expiry order.
// - cancel(), cancel_one(), expires_at(), expires_after() and the destructor
//   complete pending waits with asio::error::operation_aborted (their
//   handlers are queued, never run inside the call). A wait already fired is
//   not pending any more: its handler runs with success, as in Asio ("These
//   handlers can no longer be cancelled"). Each of these calls but the
//   destructor is a `signal` point on the timer (a `timer` object).
// - A handler runs through its associated executor (asio::bind_executor, a
//   coroutine's), as Asio's completions do, and holds work on it while
//   pending.
// - Per-operation cancellation slots and moving a timer are not supported.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <source_location>
#include <type_traits>
#include <utility>

#include <asio/any_io_executor.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/dispatch.hpp>
#include <asio/error.hpp>
#include <asio/execution.hpp>
#include <asio/prefer.hpp>
#include <asio/query.hpp>

#include "heddle/asio/io_context.hpp"
#include "heddle/chrono.hpp"

namespace heddle::asio {

namespace detail {
// Delivers a wait's outcome to its handler through the handler's executor,
// whose work it held while pending.
template <class Handler, class WorkExecutor>
class wait_completion final : public timer_completion {
 public:
  wait_completion(Handler h, WorkExecutor work) : handler_(std::move(h)), work_(std::move(work)) {}
  void complete(bool aborted) override {
    const ::asio::error_code ec =
        aborted ? ::asio::error_code(::asio::error::operation_aborted) : ::asio::error_code();
    ::asio::dispatch(work_, [h = std::move(handler_), ec]() mutable { std::move(h)(ec); });
  }

 private:
  Handler handler_;
  WorkExecutor work_;
};
}  // namespace detail

class steady_timer {
 public:
  using clock_type = heddle::chrono::steady_clock;
  using duration = clock_type::duration;
  using time_point = clock_type::time_point;
  using executor_type = ::asio::any_io_executor;

  template <class Executor, std::enable_if_t<::asio::execution::is_executor<Executor>::value, int> = 0>
  explicit steady_timer(const Executor& ex) : executor_(ex), core_(core_of(ex)) {}
  template <class ExecutionContext,
            std::enable_if_t<std::is_convertible_v<ExecutionContext&, ::asio::execution_context&>, int> = 0>
  explicit steady_timer(ExecutionContext& ctx) : steady_timer(ctx.get_executor()) {}
  template <class ExecutorOrContext>
  steady_timer(ExecutorOrContext&& e, const time_point& t) : steady_timer(std::forward<ExecutorOrContext>(e)) {
    expiry_ = t;
  }
  template <class ExecutorOrContext>
  steady_timer(ExecutorOrContext&& e, const duration& d) : steady_timer(std::forward<ExecutorOrContext>(e)) {
    expiry_ = clock_type::now() + d;
  }
  steady_timer(const steady_timer&) = delete;
  steady_timer& operator=(const steady_timer&) = delete;
  ~steady_timer() { core_->cancel_waits(this, false); }

  executor_type get_executor() noexcept { return executor_; }
  time_point expiry() const noexcept { return expiry_; }

  // Each completes the pending waits with operation_aborted; returns how many.
  std::size_t cancel(std::source_location loc = std::source_location::current()) {
    point(loc);
    return core_->cancel_waits(this, false);
  }
  std::size_t cancel_one(std::source_location loc = std::source_location::current()) {
    point(loc);
    return core_->cancel_waits(this, true);
  }
  std::size_t expires_at(const time_point& t, std::source_location loc = std::source_location::current()) {
    point(loc);
    expiry_ = t;
    return core_->cancel_waits(this, false);
  }
  std::size_t expires_after(const duration& d, std::source_location loc = std::source_location::current()) {
    point(loc);
    expiry_ = clock_type::now() + d;
    return core_->cancel_waits(this, false);
  }

  // Blocks the calling operation until the expiry (a virtual sleep).
  void wait(std::source_location loc = std::source_location::current()) {
    if (!in_control()) detail::context_core::outside_control("heddle::asio::steady_timer::wait", loc);
    sleep_until(expiry_.time_since_epoch().count(), loc);
  }

  template <class WaitToken = ::asio::default_completion_token_t<executor_type>>
  auto async_wait(WaitToken&& token = ::asio::default_completion_token_t<executor_type>()) {
    return ::asio::async_initiate<WaitToken, void(::asio::error_code)>(initiate_wait{this}, token);
  }

 private:
  struct initiate_wait {
    steady_timer* self;
    using executor_type = ::asio::any_io_executor;
    executor_type get_executor() const noexcept { return self->executor_; }
    template <class Handler>
    void operator()(Handler&& handler) const {
      self->start_wait(std::forward<Handler>(handler));
    }
  };

  template <class Handler>
  void start_wait(Handler&& handler) {
    if (!in_control())
      detail::context_core::outside_control("heddle::asio::steady_timer::async_wait", std::source_location::current());
    using handler_type = std::decay_t<Handler>;
    auto work = ::asio::prefer(::asio::get_associated_executor(handler, executor_),
                               ::asio::execution::outstanding_work.tracked);
    core_->add_wait(this, expiry_.time_since_epoch().count(),
                    std::make_unique<detail::wait_completion<handler_type, decltype(work)>>(
                        std::forward<Handler>(handler), std::move(work)));
  }

  void point(std::source_location loc) {
    if (!in_control()) detail::context_core::outside_control("a heddle::asio::steady_timer", loc);
    scheduling_point(point_kind::signal, resource_, loc);
  }

  template <class Executor>
  static std::shared_ptr<detail::context_core> core_of(const Executor& ex) {
    ::asio::execution_context& ctx = ::asio::query(ex, ::asio::execution::context);
    if (!::asio::has_service<detail::core_service>(ctx)) {
      if (in_control())
        report_misuse(
            "a heddle::asio::steady_timer needs the executor of a heddle::asio::io_context (or of a strand of one)");
      detail::context_core::outside_control("heddle::asio::steady_timer with another execution context",
                                            std::source_location::current());
    }
    return ::asio::use_service<detail::core_service>(ctx).core;
  }

  executor_type executor_;
  std::shared_ptr<detail::context_core> core_;
  resource resource_{object_kind::timer};
  time_point expiry_{};
};

}  // namespace heddle::asio
