// The shared stop state behind heddle::stop_source, stop_token and
// stop_callback: a requested flag, a count of live sources, and the list of
// registered callbacks.
//
// `mutex_` guards the list and the running-callback fields; it is held only
// for a few instructions, never across a scheduling point or a callback, so it
// is uncontended under control and makes the state thread-safe outside.
// Under control, a stop_callback destroyed while its callback runs in another
// operation waits on `resource_`, which request_stop() signals after each
// callback; outside, it waits on `finished_`.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "heddle/stop_token.hpp"

namespace heddle::detail {

class stop_state {
 public:
  bool requested() const noexcept { return requested_.load(std::memory_order_acquire); }
  bool has_sources() const noexcept { return sources_.load(std::memory_order_acquire) != 0; }
  void add_source() noexcept { sources_.fetch_add(1, std::memory_order_relaxed); }
  void remove_source() noexcept { sources_.fetch_sub(1, std::memory_order_acq_rel); }
  void point(point_kind kind, std::source_location loc) const { scheduling_point(kind, resource_, loc); }

  bool request(std::source_location loc) {
    if (in_control()) point(point_kind::signal, loc);
    std::unique_lock lock(mutex_);
    if (requested_.load(std::memory_order_relaxed)) return false;
    requested_.store(true, std::memory_order_release);
    running_op_ = current_operation();
    running_thread_ = std::this_thread::get_id();
    // Callbacks run one by one, unlocked, in registration order; each one may
    // destroy its own stop_callback or register others.
    while (stop_callback_base* cb = head_) {
      unlink(cb);
      running_ = cb;
      bool destroyed = false;
      cb->destroyed_ = &destroyed;
      lock.unlock();
      cb->invoke_(cb);
      lock.lock();
      if (!destroyed) {
        cb->destroyed_ = nullptr;
        cb->done_ = true;
      }
      running_ = nullptr;
      finished_.notify_all();
      if (in_control()) signal(resource_);
    }
    running_op_ = 0;
    lock.unlock();
    if (in_control()) signal(resource_);
    return true;
  }

  // Returns false when the stop was already requested: the caller then runs
  // its callback itself.
  bool attach(stop_callback_base* cb) {
    std::lock_guard lock(mutex_);
    if (requested_.load(std::memory_order_relaxed)) return false;
    cb->next_ = head_;
    if (head_ != nullptr) head_->prev_ = cb;
    head_ = cb;
    return true;
  }

  void detach(stop_callback_base* cb) {
    std::unique_lock lock(mutex_);
    if (cb->prev_ != nullptr || head_ == cb) {
      unlink(cb);
      return;
    }
    if (running_ != cb) return;  // never registered (ran at once) or already done
    const bool same_caller = in_control() ? running_op_ == current_operation()
                                          : running_thread_ == std::this_thread::get_id();
    if (same_caller) {
      // The callback destroys its own stop_callback: tell request() not to touch it.
      if (cb->destroyed_ != nullptr) *cb->destroyed_ = true;
      return;
    }
    if (in_control()) {
      if (unwinding()) return;  // blocking is impossible while unwinding
      while (running_ == cb && !cb->done_) {
        lock.unlock();
        wait(resource_);
        lock.lock();
      }
    } else {
      finished_.wait(lock, [&] { return running_ != cb; });
    }
  }

 private:
  void unlink(stop_callback_base* cb) noexcept {
    if (cb->prev_ != nullptr) cb->prev_->next_ = cb->next_;
    else head_ = cb->next_;
    if (cb->next_ != nullptr) cb->next_->prev_ = cb->prev_;
    cb->prev_ = cb->next_ = nullptr;
  }

  std::atomic<bool> requested_{false};
  std::atomic<std::size_t> sources_{0};
  resource resource_{object_kind::stop_state};
  std::mutex mutex_;
  std::condition_variable finished_;
  stop_callback_base* head_ = nullptr;     // registered, not yet run
  stop_callback_base* running_ = nullptr;  // the callback request() is running
  operation_id running_op_ = 0;            // who runs it, under control
  std::thread::id running_thread_;         // who runs it, outside
};

std::shared_ptr<stop_state> make_stop_state() { return std::make_shared<stop_state>(); }
bool stop_state_requested(const stop_state& s) noexcept { return s.requested(); }
bool stop_state_has_sources(const stop_state& s) noexcept { return s.has_sources(); }
void stop_state_add_source(stop_state& s) noexcept { s.add_source(); }
void stop_state_remove_source(stop_state& s) noexcept { s.remove_source(); }
bool stop_state_request(stop_state& s, std::source_location loc) { return s.request(loc); }
void stop_state_point(const stop_state& s, std::source_location loc) { s.point(point_kind::read, loc); }

void stop_callback_base::attach(const stop_token& token, std::source_location loc) {
  if (!token.state_) return;
  if (in_control()) token.state_->point(point_kind::read, loc);
  if (token.state_->attach(this)) {
    state_ = token.state_;
    return;
  }
  invoke_(this);
}

void stop_callback_base::detach() {
  if (state_) state_->detach(this);
}

}  // namespace heddle::detail
