// heddle::asio::io_context's queue, run() threads, work count and timer
// operation (include/heddle/asio/io_context.hpp has the contract).
//
// Asio's scheduler keeps one FIFO queue of ready handlers; threads inside
// run() take them from the front under a mutex and run them concurrently. Here
// a run() thread takes the front handler, then announces a `receive` point on
// the queue, then runs it: whichever thread took a handler first, the strategy
// decides whose handler gets on first, and they interleave at their points.
// Timers have no thread of their own in Asio (the reactor notices them between
// handlers); here one operation per context ("asio timers") sleeps on virtual
// time until the earliest expiry and then appends the due handlers at the back
// of the queue, earliest first, so timers of one context fire in expiry order
// while the moment they fire, relative to everything else, is the strategy's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "heddle/asio/io_context.hpp"
#include "heddle/asio/strand.hpp"

namespace heddle::asio::detail {

// The running operation is inside run() of the context for this scope.
class context_core::runner_scope {
 public:
  explicit runner_scope(context_core& core) : core_(core) {
    self_.op = current_operation();
    core_.runners_.push_back(&self_);
  }
  ~runner_scope() {
    auto& r = core_.runners_;
    r.erase(std::find(r.begin(), r.end(), &self_));
  }
  runner_scope(const runner_scope&) = delete;
  runner_scope& operator=(const runner_scope&) = delete;
  runner& self() noexcept { return self_; }

 private:
  context_core& core_;
  runner self_;
};

// One handler's run: when it returns or throws, the handlers it deferred go
// to the back of the queue and its unit of work is done.
class context_core::handler_scope {
 public:
  handler_scope(context_core& core, runner& r) noexcept : core_(core), runner_(r) {}
  ~handler_scope() {
    // Counted as work when deferred.
    for (queued_handler& h : runner_.deferred) core_.queue_handlers_.push_back(std::move(h));
    if (!runner_.deferred.empty()) core_.wake_runners();
    runner_.deferred.clear();
    core_.work_finished();
  }
  handler_scope(const handler_scope&) = delete;
  handler_scope& operator=(const handler_scope&) = delete;

 private:
  context_core& core_;
  runner& runner_;
};

context_core::context_core() = default;
context_core::~context_core() = default;

void context_core::outside_control(const char* what, std::source_location loc) {
  std::fprintf(stderr,
               "heddle: %s called outside a controlled iteration (%s:%u): heddle::asio runs only inside "
               "heddle::explore or a HEDDLE_TEST\n",
               what, loc.file_name(), static_cast<unsigned>(loc.line()));
  std::abort();
}

void context_core::work_finished() noexcept {
  if (--outstanding_work_ <= 0) {
    outstanding_work_ = 0;
    stopped_ = true;  // Asio: the context stops when its work runs out
    wake_runners();
  }
}

bool context_core::running_in_this_thread() const noexcept {
  const operation_id me = current_operation();
  if (me == 0) return false;
  for (const runner* r : runners_)
    if (r->op == me) return true;
  return false;
}

void context_core::wake_runners() noexcept {
  if (in_control() && !unwinding()) signal(queue_);
}

void context_core::push(queued_handler h) {
  ++outstanding_work_;
  queue_handlers_.push_back(std::move(h));
}

void context_core::post(queued_handler h, bool continuation, std::source_location loc) {
  if (!in_control()) outside_control("posting to a heddle::asio::io_context", loc);
  if (shut_down_) return;  // destroyed with the handler, as after Asio's shutdown
  scheduling_point(point_kind::send, queue_, loc);
  hb_release(queue_);
  enqueue(std::move(h), continuation);
}

void context_core::enqueue(queued_handler h, bool continuation) {
  if (shut_down_) return;
  if (continuation) {
    // Asio keeps a continuation posted from a handler in the thread's private
    // queue until that handler returns.
    const operation_id me = current_operation();
    for (runner* r : runners_)
      if (r->op == me) {
        ++outstanding_work_;
        r->deferred.push_back(std::move(h));
        return;
      }
  }
  push(std::move(h));
  wake_runners();
}

std::size_t context_core::run(std::size_t limit, bool block, std::optional<virtual_time> deadline,
                              std::source_location loc) {
  if (!in_control()) outside_control("heddle::asio::io_context::run", loc);
  if (outstanding_work_ == 0) {
    stopped_ = true;
    return 0;
  }
  const std::shared_ptr<context_core> keep = shared_from_this();  // a handler may destroy the io_context
  runner_scope scope(*this);
  std::size_t ran = 0;
  while (ran < limit && !stopped_) {
    if (queue_handlers_.empty()) {
      if (!block) break;
      if (!deadline) {
        wait(queue_, loc);
      } else if (wait_until(queue_, *deadline, loc) == wake_reason::timeout) {
        break;
      }
      continue;
    }
    queued_handler h = std::move(queue_handlers_.front());
    queue_handlers_.pop_front();
    // Taken, not yet started: who starts first is the strategy's choice.
    scheduling_point(point_kind::receive, queue_, loc);
    hb_acquire(queue_);
    handler_scope running(*this, scope.self());
    h();
    ++ran;
  }
  return ran;
}

void context_core::stop(std::source_location loc) {
  if (!in_control()) outside_control("heddle::asio::io_context::stop", loc);
  scheduling_point(point_kind::signal, queue_, loc);
  stopped_ = true;
  wake_runners();
}

void context_core::shutdown() noexcept {
  if (shut_down_) return;
  shut_down_ = true;
  // Destroying a handler may post (a coroutine's frames are destroyed through
  // its executor): post and enqueue drop everything from here on.
  std::deque<queued_handler> queued = std::move(queue_handlers_);
  std::vector<pending_wait> waits = std::move(waits_);
  std::vector<std::weak_ptr<strand_core>> strands = std::move(strands_);
  queued.clear();
  waits.clear();
  for (const auto& weak : strands)
    if (auto s = weak.lock()) s->clear();
  outstanding_work_ = 0;
  stopped_ = true;
  if (in_control() && !unwinding()) {
    signal(timers_);  // the timer operation sees shut_down_ and ends
    signal(queue_);
  }
}

// --- timers --------------------------------------------------------------------

void context_core::add_wait(const void* timer, virtual_time expiry, std::unique_ptr<timer_completion> completion) {
  if (shut_down_) return;
  ++outstanding_work_;  // a pending wait keeps run() running, as in Asio
  bool earliest = true;
  for (const pending_wait& w : waits_) earliest = earliest && expiry < w.expiry;
  waits_.push_back({timer, expiry, next_wait_order_++, std::move(completion)});
  if (timer_operation_alive_) {
    if (earliest) signal(timers_);  // it sleeps until a later expiry: it re-reads
    return;
  }
  if (unwinding()) return;
  timer_operation_alive_ = true;
  spawn([core = shared_from_this()] { core->serve_timers(); }, "asio timers");
}

void context_core::serve_timers() {
  // Ends when no wait is pending, so a test that leaves no timer behind has
  // no operation left over (a leftover blocked one would be a deadlock).
  while (!shut_down_ && !waits_.empty()) {
    virtual_time earliest = waits_.front().expiry;
    for (const pending_wait& w : waits_) earliest = std::min(earliest, w.expiry);
    if (earliest > now()) {
      // Enabled with a deadline: when the strategy picks this operation, the
      // clock jumps to the expiry and the timers fire (engine.cpp).
      wait_until(timers_, earliest);
      continue;
    }
    fire_expired();
  }
  timer_operation_alive_ = false;
}

void context_core::fire_expired() {
  const virtual_time t = now();
  std::vector<pending_wait> due;
  auto it = std::stable_partition(waits_.begin(), waits_.end(), [t](const pending_wait& w) { return w.expiry > t; });
  std::move(it, waits_.end(), std::back_inserter(due));
  waits_.erase(it, waits_.end());
  std::sort(due.begin(), due.end(), [](const pending_wait& a, const pending_wait& b) {
    return a.expiry != b.expiry ? a.expiry < b.expiry : a.order < b.order;
  });
  hb_release(queue_);
  for (pending_wait& w : due) complete_wait(w, false);
  wake_runners();
}

void context_core::complete_wait(pending_wait& w, bool aborted) {
  // The wait's unit of work becomes the queued handler's.
  queue_handlers_.push_back(queued_handler([c = std::move(w.completion), aborted]() mutable { c->complete(aborted); }));
}

std::size_t context_core::cancel_waits(const void* timer, bool only_one) noexcept {
  std::size_t cancelled = 0;
  for (;;) {
    // The timer's first pending wait, in the order the waits started.
    auto first = waits_.end();
    for (auto it = waits_.begin(); it != waits_.end(); ++it)
      if (it->timer == timer && (first == waits_.end() || it->order < first->order)) first = it;
    if (first == waits_.end()) break;
    complete_wait(*first, true);
    waits_.erase(first);
    ++cancelled;
    if (only_one) break;
  }
  if (cancelled > 0) {
    wake_runners();
    if (in_control() && !unwinding()) signal(timers_);  // the timer operation re-reads, or ends
  }
  return cancelled;
}

std::size_t context_core::pending_waits(const void* timer) const noexcept {
  return static_cast<std::size_t>(
      std::count_if(waits_.begin(), waits_.end(), [timer](const pending_wait& w) { return w.timer == timer; }));
}

void context_core::add_strand(const std::shared_ptr<strand_core>& s) {
  if (strands_.size() >= 16 && strands_.size() == strands_.capacity())
    std::erase_if(strands_, [](const std::weak_ptr<strand_core>& w) { return w.expired(); });
  strands_.push_back(s);
}

}  // namespace heddle::asio::detail
