// heddle::jthread: std::jthread under control. A heddle::thread plus a
// stop_source: when the callable accepts a heddle::stop_token as its first
// argument it gets the jthread's token; the destructor requests a stop and
// joins. Misuse is reported as for heddle::thread (joining twice, joining
// oneself).
//
// Under control, joining may end with the iteration (a bug elsewhere, a
// deadlock), which unwinds the joining operation with an exception. The
// destructor is noexcept, as std's is, so it drops that exception: the
// operation's next scheduling point throws it again. While the iteration
// unwinds, the destructor neither requests a stop nor joins: it abandons the
// operation, which the engine unwinds too.
#pragma once

#include <exception>
#include <functional>
#include <source_location>
#include <type_traits>
#include <utility>

#include "heddle/model.hpp"
#include "heddle/stop_token.hpp"
#include "heddle/thread.hpp"

namespace heddle {

class jthread {
 public:
  using id = thread::id;

  jthread() noexcept : source_(nostopstate) {}

  template <class F, class... Args>
    requires(!std::is_same_v<std::remove_cvref_t<F>, jthread>)
  explicit jthread(F&& f, Args&&... args) {
    if constexpr (std::is_invocable_v<std::decay_t<F>, stop_token, std::decay_t<Args>...>) {
      thread_ = thread(std::forward<F>(f), source_.get_token(), std::forward<Args>(args)...);
    } else {
      thread_ = thread(std::forward<F>(f), std::forward<Args>(args)...);
    }
  }

  jthread(jthread&&) noexcept = default;
  jthread& operator=(jthread&& other) noexcept {
    if (this != &other) {
      stop_and_join_quietly();
      thread_ = std::move(other.thread_);
      source_ = std::move(other.source_);
    }
    return *this;
  }
  jthread(const jthread&) = delete;
  jthread& operator=(const jthread&) = delete;
  ~jthread() { stop_and_join_quietly(); }

  [[nodiscard]] bool joinable() const noexcept { return thread_.joinable(); }
  [[nodiscard]] id get_id() const noexcept { return thread_.get_id(); }
  void join(std::source_location loc = std::source_location::current()) { thread_.join(loc); }
  void detach() { thread_.detach(); }
  void swap(jthread& other) noexcept {
    thread_.swap(other.thread_);
    source_.swap(other.source_);
  }
  friend void swap(jthread& a, jthread& b) noexcept { a.swap(b); }

  [[nodiscard]] stop_source get_stop_source() noexcept { return source_; }
  [[nodiscard]] stop_token get_stop_token() const noexcept { return source_.get_token(); }
  bool request_stop(std::source_location loc = std::source_location::current()) {
    return source_.request_stop(loc);
  }

  static unsigned hardware_concurrency() noexcept { return thread::hardware_concurrency(); }

 private:
  void stop_and_join() {
    if (!thread_.joinable()) return;
    if (unwinding()) {
      thread_.detach();  // the engine unwinds the operation itself
      return;
    }
    source_.request_stop();
    thread_.join();
  }
  void stop_and_join_quietly() noexcept {
    try {
      stop_and_join();
    } catch (...) {
      if (!in_control()) std::terminate();  // as std::jthread's noexcept destructor
    }
  }

  stop_source source_;  // before thread_: the callable may hold its token
  thread thread_;
};

}  // namespace heddle
