// The result-independent part of heddle's future shared state: readiness,
// waiting (on the resource under control, on a real condition variable
// outside), deferred functions and joining async work.
#include <string>

#include "heddle/future.hpp"

namespace heddle::detail {

void throw_future_error(future_errc code) { throw future_error(code); }

future_state_base::~future_state_base() {
  if (async_thread_.joinable()) async_thread_.detach();  // released without a future: nothing waits
}

std::unique_lock<std::mutex> future_state_base::begin_satisfy(std::source_location loc) {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (in_control()) {
    scheduling_point(point_kind::signal, resource_, loc);
  } else {
    lock.lock();
  }
  if (ready_) throw_future_error(future_errc::promise_already_satisfied);
  return lock;
}

void future_state_base::end_satisfy(std::unique_lock<std::mutex>& lock) {
  hb_release(resource_);
  ready_ = true;
  if (lock.owns_lock()) {
    lock.unlock();
    ready_cv_.notify_all();
  } else {
    signal(resource_);
  }
}

void future_state_base::abandon() noexcept {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (!in_control()) lock.lock();
  if (ready_) return;
  error_ = std::make_exception_ptr(future_error(future_errc::broken_promise));
  end_satisfy(lock);
}

void future_state_base::mark_retrieved() {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (!in_control()) lock.lock();
  if (retrieved_) throw_future_error(future_errc::future_already_retrieved);
  retrieved_ = true;
}

bool future_state_base::ready_now() {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (!in_control()) lock.lock();
  return ready_;
}

bool future_state_base::run_deferred_if_first() {
  {
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    if (!in_control()) lock.lock();
    if (!deferred_ || deferred_started_ || ready_) return false;
    deferred_started_ = true;
  }
  deferred_();
  return true;
}

void future_state_base::wait(std::source_location loc) {
  if (run_deferred_if_first()) return;
  if (in_control()) {
    while (!ready_) heddle::wait(resource_, loc);
    hb_acquire(resource_);
    return;
  }
  std::unique_lock lock(mutex_);
  ready_cv_.wait(lock, [&] { return ready_; });
}

future_status future_state_base::wait_until_virtual(virtual_time deadline, std::source_location loc) {
  if (deferred_ && !ready_) return future_status::deferred;
  while (!ready_) {
    if (heddle::wait_until(resource_, deadline, loc) == wake_reason::timeout && !ready_)
      return future_status::timeout;
  }
  hb_acquire(resource_);
  return future_status::ready;
}

void future_state_base::set_async_operation(operation_id op) {
  async_op_ = op;
  (void)resource_.id();  // registers the resource, so stale() tells a later iteration apart
}

void future_state_base::release_handle() {
  if (handles_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (async_thread_.joinable()) {
    async_thread_.join();
    return;
  }
  if (async_op_ != 0 && in_control() && !resource_.stale() && !unwinding()) {
    const operation_id op = std::exchange(async_op_, 0);
    if (!finished(op)) heddle::join(op);
  }
}

}  // namespace heddle::detail
