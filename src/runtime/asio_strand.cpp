// The controlled strand behind asio::strand<heddle::asio::executor>
// (include/heddle/asio/strand.hpp has the contract).
//
// The same algorithm as Asio 1.22's strand_executor_service, on heddle's
// points: a submission to an idle strand locks it and queues an "invoker" in
// the context; the invoker runs the ready batch, then the handlers submitted
// meanwhile become the next batch and the invoker goes to the back of the
// context's queue again, or the strand unlocks. The strand knows which
// operation runs it (not which OS thread), so dispatch and
// running_in_this_thread() stay right on fibers.
#include <exception>

#include "heddle/asio/strand.hpp"

namespace heddle::asio::detail {

void strand_core::execute(queued_handler h, bool may_run_inline, bool continuation, std::source_location loc) {
  if (!in_control()) context_core::outside_control("submitting to an asio::strand of heddle's executor", loc);
  if (may_run_inline && running_in_this_thread()) {
    h();  // dispatch from inside the strand
    return;
  }
  scheduling_point(point_kind::send, resource_, loc);
  hb_release(resource_);
  if (locked_) {
    waiting_.push_back(std::move(h));
    return;
  }
  locked_ = true;
  ready_.push_back(std::move(h));
  if (may_run_inline && context_->running_in_this_thread()) {
    run_batch();  // the inner executor's dispatch runs the invoker here
    return;
  }
  context_->enqueue(invoker(), continuation);
}

queued_handler strand_core::invoker() {
  return queued_handler([self = shared_from_this()] { self->run_batch(); });
}

void strand_core::run_batch() {
  running_ = current_operation();
  hb_acquire(resource_);
  try {
    bool first = true;
    while (!ready_.empty()) {
      if (!first) {
        // Other threads run between two handlers of a batch.
        scheduling_point(point_kind::receive, resource_);
        hb_acquire(resource_);
      }
      first = false;
      queued_handler h = std::move(ready_.front());
      ready_.pop_front();
      h();
    }
  } catch (...) {
    running_ = 0;
    // A handler threw out of run(): the strand goes on without it, as Asio's
    // invoker does on exit. The iteration's unwinding needs nothing.
    if (!is_unwind_exception(std::current_exception())) end_batch();
    throw;
  }
  running_ = 0;
  scheduling_point(point_kind::release, resource_);  // a release point never unwinds
  end_batch();
}

void strand_core::end_batch() {
  hb_release(resource_);
  for (queued_handler& h : waiting_) ready_.push_back(std::move(h));
  waiting_.clear();
  if (ready_.empty()) {
    locked_ = false;
    return;
  }
  context_->enqueue(invoker(), false);
}

void strand_core::clear() noexcept {
  std::deque<queued_handler> ready = std::move(ready_);
  std::deque<queued_handler> waiting = std::move(waiting_);
  ready_.clear();
  waiting_.clear();
  locked_ = false;
}

}  // namespace heddle::asio::detail
