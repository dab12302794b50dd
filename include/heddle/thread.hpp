// heddle::thread: std::thread under control. Inside an iteration the callable
// runs as a new operation (a fiber); outside, it is a real std::thread.
// Misuse is a bug with a plain message: destroying or overwriting a joinable
// thread, joining a thread that is not joinable, joining oneself.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <source_location>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

#include "heddle/model.hpp"

namespace heddle {

class thread {
 public:
  // Identifies a thread: an operation under control, a real thread outside.
  class id {
   public:
    id() noexcept = default;
    explicit id(operation_id op) noexcept : op_(op) {}
    explicit id(std::thread::id real) noexcept : real_(real) {}
    friend bool operator==(const id&, const id&) = default;
    friend auto operator<=>(const id& a, const id& b) noexcept {
      if (auto c = a.op_ <=> b.op_; c != 0) return c;
      return a.real_ <=> b.real_;
    }
    friend std::ostream& operator<<(std::ostream& os, const id& i) {
      if (i.op_ != 0) return os << "operation " << i.op_;
      return os << i.real_;
    }
    operation_id operation() const noexcept { return op_; }
    std::size_t hash() const noexcept { return op_ != 0 ? op_ : std::hash<std::thread::id>{}(real_); }

   private:
    operation_id op_ = 0;
    std::thread::id real_{};
  };

  thread() noexcept = default;

  template <class F, class... Args>
    requires(!std::is_same_v<std::remove_cvref_t<F>, thread>)
  explicit thread(F&& f, Args&&... args) {
    if (in_control()) {
      if constexpr (sizeof...(Args) == 0 && std::is_copy_constructible_v<std::decay_t<F>>) {
        // The common case: a small copyable lambda, stored inline by std::function.
        op_ = spawn([fn = std::decay_t<F>(std::forward<F>(f))]() mutable { std::invoke(fn); });
      } else {
        // std::function needs a copyable target: share move-only callables and arguments.
        auto call = std::make_shared<std::tuple<std::decay_t<F>, std::decay_t<Args>...>>(std::forward<F>(f),
                                                                                         std::forward<Args>(args)...);
        op_ = spawn([call] { std::apply([](auto& fn, auto&... a) { std::invoke(std::move(fn), std::move(a)...); }, *call); });
      }
    } else {
      real_ = std::thread(std::forward<F>(f), std::forward<Args>(args)...);
    }
  }

  thread(thread&& other) noexcept : op_(std::exchange(other.op_, 0)), real_(std::move(other.real_)) {}
  thread& operator=(thread&& other) noexcept;
  thread(const thread&) = delete;
  thread& operator=(const thread&) = delete;
  ~thread();

  bool joinable() const noexcept { return op_ != 0 || real_.joinable(); }
  id get_id() const noexcept { return op_ != 0 ? id(op_) : id(real_.get_id()); }
  void join(std::source_location loc = std::source_location::current());
  void detach();
  void swap(thread& other) noexcept {
    std::swap(op_, other.op_);
    real_.swap(other.real_);
  }
  static unsigned hardware_concurrency() noexcept { return std::thread::hardware_concurrency(); }

 private:
  operation_id op_ = 0;  // the controlled operation, 0 when none
  std::thread real_;
};

namespace this_thread {
thread::id get_id() noexcept;
// Names the running operation in reports ("operation 2 (alice)").
void set_name(std::string name);
}  // namespace this_thread

}  // namespace heddle

template <>
struct std::hash<heddle::thread::id> {
  std::size_t operator()(const heddle::thread::id& i) const noexcept { return i.hash(); }
};
