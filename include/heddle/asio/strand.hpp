// Strands over heddle::asio::io_context: asio::make_strand(ctx) and
// asio::make_strand(ctx.get_executor()) give an asio::strand<heddle::asio::executor>,
// which is the specialization below: a controlled strand, not Asio's.
//
// Why not Asio's own strand: it marks "this thread runs the strand" in a
// thread-local call stack, and all of an iteration's operations share one OS
// thread on fibers, so a handler of another operation would see the strand as
// its own while it is only paused in it, and asio::dispatch would run that
// handler inside the strand: a false interleaving. This one keeps the running
// operation's id instead.
//
// The contract, which is Asio's (asio/strand.hpp, "Order of handler
// invocation"): no two handlers of one strand run at the same time, and a
// handler submitted after another (post, dispatch or defer; in the order of
// the submissions' `send` points) runs after it. The strand's handlers run in
// batches as Asio 1.22's strand_executor_service runs them: the handlers
// submitted while a batch runs form the next batch, which goes to the back of
// the context's queue when the batch ends. Between two handlers of a batch
// there is a scheduling point (`receive` on the strand, a `channel` object),
// since other threads run meanwhile; a batch ends at a `release` point.
// asio::dispatch to a strand runs the function at once when the caller runs in
// the strand, and runs the strand's batch at once when the strand is idle and
// the caller is inside run() of the strand's context, as Asio does.
//
// Not covered: asio::strand<asio::any_io_executor> (a strand made from a
// type-erased executor, such as co_await asio::this_coro::executor) is Asio's
// own: make strands from the io_context or its executor.
#pragma once

#include <deque>
#include <memory>
#include <source_location>
#include <type_traits>
#include <utility>

#include <asio/strand.hpp>

#include "heddle/asio/io_context.hpp"

namespace heddle::asio::detail {

class strand_core : public std::enable_shared_from_this<strand_core> {
 public:
  explicit strand_core(std::shared_ptr<context_core> context) : context_(std::move(context)) {}
  strand_core(const strand_core&) = delete;
  strand_core& operator=(const strand_core&) = delete;

  // Submits `h`: runs it now when `may_run_inline` (dispatch) and the caller
  // runs in this strand; otherwise a `send` point, then into the strand.
  // `inner_never`: the inner executor is blocking.never (post, defer).
  void execute(queued_handler h, bool may_run_inline, bool continuation, std::source_location loc);
  bool running_in_this_thread() const noexcept { return running_ != 0 && running_ == current_operation(); }
  // The context's shutdown: queued handlers are destroyed unrun.
  void clear() noexcept;

 private:
  void run_batch();
  void end_batch();
  queued_handler invoker();

  std::shared_ptr<context_core> context_;
  resource resource_{object_kind::channel};
  std::deque<queued_handler> ready_;    // the batch being run
  std::deque<queued_handler> waiting_;  // submitted while the batch runs
  bool locked_ = false;                 // a batch is queued or running
  operation_id running_ = 0;            // the operation running a handler of this strand
};

}  // namespace heddle::asio::detail

// The specialization asio::make_strand picks for heddle's executor. It is an
// executor itself, with the inner executor's properties.
template <>
class asio::strand<heddle::asio::executor> {
 public:
  using inner_executor_type = heddle::asio::executor;

  strand() = default;
  explicit strand(const inner_executor_type& e)
      : executor_(e), core_(std::make_shared<heddle::asio::detail::strand_core>(e.context().core())) {
    e.context().core()->add_strand(core_);
  }

  inner_executor_type get_inner_executor() const noexcept { return executor_; }

  template <class Property>
  auto query(const Property& p) const noexcept(noexcept(std::declval<const inner_executor_type&>().query(p)))
      -> decltype(std::declval<const inner_executor_type&>().query(p)) {
    return executor_.query(p);
  }
  template <class Property>
  auto require(const Property& p) const
      -> std::enable_if_t<std::is_same_v<decltype(std::declval<const inner_executor_type&>().require(p)),
                                         inner_executor_type>,
                          strand> {
    return strand(executor_.require(p), core_);
  }

  template <class Function>
  void execute(Function&& f) const {
    const bool never = executor_.query(execution::blocking) == execution::blocking.never;
    const bool continuation = executor_.query(execution::relationship) == execution::relationship.continuation;
    core_->execute(heddle::asio::detail::queued_handler(std::forward<Function>(f)), !never, continuation,
                   std::source_location::current());
  }

  // Networking TS executors.
  execution_context& context() const noexcept { return executor_.context(); }
  void on_work_started() const noexcept { executor_.on_work_started(); }
  void on_work_finished() const noexcept { executor_.on_work_finished(); }
  template <class Function, class Allocator>
  void dispatch(Function&& f, const Allocator&) const {
    core_->execute(heddle::asio::detail::queued_handler(std::forward<Function>(f)), true, false,
                   std::source_location::current());
  }
  template <class Function, class Allocator>
  void post(Function&& f, const Allocator&) const {
    core_->execute(heddle::asio::detail::queued_handler(std::forward<Function>(f)), false, false,
                   std::source_location::current());
  }
  template <class Function, class Allocator>
  void defer(Function&& f, const Allocator&) const {
    core_->execute(heddle::asio::detail::queued_handler(std::forward<Function>(f)), false, true,
                   std::source_location::current());
  }

  // The running operation runs a handler of this strand.
  bool running_in_this_thread() const noexcept { return core_ != nullptr && core_->running_in_this_thread(); }

  friend bool operator==(const strand& a, const strand& b) noexcept { return a.core_ == b.core_; }
  friend bool operator!=(const strand& a, const strand& b) noexcept { return a.core_ != b.core_; }

 private:
  strand(const inner_executor_type& e, std::shared_ptr<heddle::asio::detail::strand_core> core)
      : executor_(e), core_(std::move(core)) {}

  inner_executor_type executor_;
  std::shared_ptr<heddle::asio::detail::strand_core> core_;
};
