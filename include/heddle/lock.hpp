// heddle's lock owners (DESIGN.md section 8): lock_guard, unique_lock,
// scoped_lock, shared_lock, and the deadlock-avoiding heddle::lock/try_lock,
// with std's semantics and std's tag types.
//
// They work with heddle's mutexes and with std's (and with any lockable type).
// What they add: every constructor and member takes a trailing
// std::source_location, passed on to heddle mutexes, so a report names the
// user's lock site, not a line in this header. Destructors unlock at the
// construction site's location. Destructors are noexcept(false): an unlock is
// a scheduling point, and an iteration that ends while an operation is paused
// there unwinds it with an exception.
//
// Errors follow std: unique_lock::lock of a lock that already owns its mutex,
// unlock of one that does not, and so on throw std::system_error.
#pragma once

#include <array>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <mutex>
#include <source_location>
#include <system_error>
#include <tuple>
#include <utility>

namespace heddle {

using std::adopt_lock;
using std::adopt_lock_t;
using std::defer_lock;
using std::defer_lock_t;
using std::try_to_lock;
using std::try_to_lock_t;

namespace detail {

template <class L>
concept basic_lockable = requires(L& l) {
  l.lock();
  l.unlock();
};

// Each calls the lockable with the user's location when it takes one
// (heddle's models), and without it otherwise (std's primitives).
template <class L>
void lock_at(L& l, std::source_location loc) {
  if constexpr (requires { l.lock(loc); }) l.lock(loc);
  else l.lock();
}
template <class L>
bool try_lock_at(L& l, std::source_location loc) {
  if constexpr (requires { l.try_lock(loc); }) return l.try_lock(loc);
  else return l.try_lock();
}
template <class L>
void unlock_at(L& l, std::source_location loc) {
  if constexpr (requires { l.unlock(loc); }) l.unlock(loc);
  else l.unlock();
}
template <class L>
void lock_shared_at(L& l, std::source_location loc) {
  if constexpr (requires { l.lock_shared(loc); }) l.lock_shared(loc);
  else l.lock_shared();
}
template <class L>
bool try_lock_shared_at(L& l, std::source_location loc) {
  if constexpr (requires { l.try_lock_shared(loc); }) return l.try_lock_shared(loc);
  else return l.try_lock_shared();
}
template <class L>
void unlock_shared_at(L& l, std::source_location loc) {
  if constexpr (requires { l.unlock_shared(loc); }) l.unlock_shared(loc);
  else l.unlock_shared();
}
template <class L, class T>
bool try_lock_for_at(L& l, const T& d, std::source_location loc) {
  if constexpr (requires { l.try_lock_for(d, loc); }) return l.try_lock_for(d, loc);
  else return l.try_lock_for(d);
}
template <class L, class T>
bool try_lock_until_at(L& l, const T& t, std::source_location loc) {
  if constexpr (requires { l.try_lock_until(t, loc); }) return l.try_lock_until(t, loc);
  else return l.try_lock_until(t);
}
template <class L, class T>
bool try_lock_shared_for_at(L& l, const T& d, std::source_location loc) {
  if constexpr (requires { l.try_lock_shared_for(d, loc); }) return l.try_lock_shared_for(d, loc);
  else return l.try_lock_shared_for(d);
}
template <class L, class T>
bool try_lock_shared_until_at(L& l, const T& t, std::source_location loc) {
  if constexpr (requires { l.try_lock_shared_until(t, loc); }) return l.try_lock_shared_until(t, loc);
  else return l.try_lock_shared_until(t);
}

// A lockable of any type, for the multi-lock algorithms below.
struct erased_lockable {
  void* object;
  void (*lock)(void*, std::source_location);
  bool (*try_lock)(void*, std::source_location);
  void (*unlock)(void*, std::source_location);
};
template <class L>
erased_lockable erase(L& l) noexcept {
  return {&l, [](void* p, std::source_location loc) { lock_at(*static_cast<L*>(p), loc); },
          [](void* p, std::source_location loc) { return try_lock_at(*static_cast<L*>(p), loc); },
          [](void* p, std::source_location loc) { unlock_at(*static_cast<L*>(p), loc); }};
}

// Unlocks the `count` lockables from `first` (cyclically) unless dismissed:
// on an exception, what was taken is given back.
class unlock_on_exit {
 public:
  unlock_on_exit(const erased_lockable* all, std::size_t size, std::size_t first, std::source_location loc)
      : all_(all), size_(size), first_(first), loc_(loc) {}
  unlock_on_exit(const unlock_on_exit&) = delete;
  unlock_on_exit& operator=(const unlock_on_exit&) = delete;
  ~unlock_on_exit() noexcept(false) {
    for (std::size_t k = 0; k < count; ++k) {
      const erased_lockable& l = all_[(first_ + k) % size_];
      l.unlock(l.object, loc_);
    }
  }
  std::size_t count = 0;

 private:
  const erased_lockable* all_;
  std::size_t size_;
  std::size_t first_;
  std::source_location loc_;
};

// std::lock's algorithm (as in libstdc++): lock one, try the others in order;
// on a failure give all back and start again from the one that failed, so no
// operation ever blocks while holding another of the locks.
void lock_all(const erased_lockable* all, std::size_t size, std::source_location loc);
// std::try_lock: -1 when all were taken, else the index of the first that was not.
int try_lock_all(const erased_lockable* all, std::size_t size, std::source_location loc);

template <class... Ls>
void lock_many(std::source_location loc, Ls&... ls) {
  const std::array<erased_lockable, sizeof...(Ls)> all{erase(ls)...};
  lock_all(all.data(), all.size(), loc);
}
template <class... Ls>
int try_lock_many(std::source_location loc, Ls&... ls) {
  const std::array<erased_lockable, sizeof...(Ls)> all{erase(ls)...};
  return try_lock_all(all.data(), all.size(), loc);
}

[[noreturn]] inline void lock_error(std::errc code, const char* what) {
  throw std::system_error(std::make_error_code(code), what);
}

}  // namespace detail

// heddle::lock(a, b, ...): locks all without deadlock, like std::lock. The
// two- and three-lockable forms carry the caller's location; more use this header's.
template <detail::basic_lockable L1, detail::basic_lockable L2>
void lock(L1& a, L2& b, std::source_location loc = std::source_location::current()) {
  detail::lock_many(loc, a, b);
}
template <detail::basic_lockable L1, detail::basic_lockable L2, detail::basic_lockable L3>
void lock(L1& a, L2& b, L3& c, std::source_location loc = std::source_location::current()) {
  detail::lock_many(loc, a, b, c);
}
template <detail::basic_lockable L1, detail::basic_lockable L2, detail::basic_lockable L3,
          detail::basic_lockable L4, detail::basic_lockable... Ls>
void lock(L1& a, L2& b, L3& c, L4& d, Ls&... rest) {
  detail::lock_many(std::source_location::current(), a, b, c, d, rest...);
}

// heddle::try_lock(a, b, ...): like std::try_lock; -1 on success, else the
// 0-based index of the lockable that could not be taken (none is left held).
template <detail::basic_lockable L1, detail::basic_lockable L2>
int try_lock(L1& a, L2& b, std::source_location loc = std::source_location::current()) {
  return detail::try_lock_many(loc, a, b);
}
template <detail::basic_lockable L1, detail::basic_lockable L2, detail::basic_lockable L3>
int try_lock(L1& a, L2& b, L3& c, std::source_location loc = std::source_location::current()) {
  return detail::try_lock_many(loc, a, b, c);
}
template <detail::basic_lockable L1, detail::basic_lockable L2, detail::basic_lockable L3,
          detail::basic_lockable L4, detail::basic_lockable... Ls>
int try_lock(L1& a, L2& b, L3& c, L4& d, Ls&... rest) {
  return detail::try_lock_many(std::source_location::current(), a, b, c, d, rest...);
}

template <class M>
class lock_guard {
 public:
  using mutex_type = M;
  explicit lock_guard(M& m, std::source_location loc = std::source_location::current()) : m_(m), loc_(loc) {
    detail::lock_at(m_, loc);
  }
  lock_guard(M& m, adopt_lock_t, std::source_location loc = std::source_location::current()) noexcept
      : m_(m), loc_(loc) {}
  ~lock_guard() noexcept(false) { detail::unlock_at(m_, loc_); }
  lock_guard(const lock_guard&) = delete;
  lock_guard& operator=(const lock_guard&) = delete;

 private:
  M& m_;
  std::source_location loc_;
};
template <class M>
lock_guard(M&) -> lock_guard<M>;
template <class M>
lock_guard(M&, adopt_lock_t) -> lock_guard<M>;

namespace detail {
template <class... Ms>
struct scoped_lock_base {};
template <class M>
struct scoped_lock_base<M> {
  using mutex_type = M;
};
}  // namespace detail

template <class... Ms>
class scoped_lock : public detail::scoped_lock_base<Ms...> {
 public:
  explicit scoped_lock(Ms&... ms, std::source_location loc = std::source_location::current())
      : ms_(ms...), loc_(loc) {
    if constexpr (sizeof...(Ms) == 1) (detail::lock_at(ms, loc), ...);
    else if constexpr (sizeof...(Ms) > 1) detail::lock_many(loc, ms...);
  }
  explicit scoped_lock(adopt_lock_t, Ms&... ms, std::source_location loc = std::source_location::current())
      : ms_(ms...), loc_(loc) {}
  ~scoped_lock() noexcept(false) {
    std::apply([this](Ms&... ms) { (detail::unlock_at(ms, loc_), ...); }, ms_);
  }
  scoped_lock(const scoped_lock&) = delete;
  scoped_lock& operator=(const scoped_lock&) = delete;

 private:
  std::tuple<Ms&...> ms_;
  std::source_location loc_;
};
template <detail::basic_lockable... Ms>
scoped_lock(Ms&...) -> scoped_lock<Ms...>;
template <detail::basic_lockable... Ms>
scoped_lock(adopt_lock_t, Ms&...) -> scoped_lock<Ms...>;

template <class M>
class unique_lock {
 public:
  using mutex_type = M;

  unique_lock() noexcept = default;
  explicit unique_lock(M& m, std::source_location loc = std::source_location::current()) : m_(&m), loc_(loc) {
    detail::lock_at(m, loc);
    owns_ = true;
  }
  unique_lock(M& m, defer_lock_t, std::source_location loc = std::source_location::current()) noexcept
      : m_(&m), loc_(loc) {}
  unique_lock(M& m, try_to_lock_t, std::source_location loc = std::source_location::current())
      : m_(&m), owns_(detail::try_lock_at(m, loc)), loc_(loc) {}
  unique_lock(M& m, adopt_lock_t, std::source_location loc = std::source_location::current()) noexcept
      : m_(&m), owns_(true), loc_(loc) {}
  template <class Rep, class Period>
  unique_lock(M& m, const std::chrono::duration<Rep, Period>& d,
              std::source_location loc = std::source_location::current())
      : m_(&m), owns_(detail::try_lock_for_at(m, d, loc)), loc_(loc) {}
  template <class Clock, class Duration>
  unique_lock(M& m, const std::chrono::time_point<Clock, Duration>& t,
              std::source_location loc = std::source_location::current())
      : m_(&m), owns_(detail::try_lock_until_at(m, t, loc)), loc_(loc) {}

  unique_lock(unique_lock&& other) noexcept
      : m_(std::exchange(other.m_, nullptr)), owns_(std::exchange(other.owns_, false)), loc_(other.loc_) {}
  unique_lock& operator=(unique_lock&& other) {
    if (owns_) detail::unlock_at(*m_, loc_);
    m_ = std::exchange(other.m_, nullptr);
    owns_ = std::exchange(other.owns_, false);
    loc_ = other.loc_;
    return *this;
  }
  unique_lock(const unique_lock&) = delete;
  unique_lock& operator=(const unique_lock&) = delete;
  ~unique_lock() noexcept(false) {
    if (owns_) detail::unlock_at(*m_, loc_);
  }

  void lock(std::source_location loc = std::source_location::current()) {
    check_lockable("unique_lock::lock");
    detail::lock_at(*m_, loc);
    owns_ = true;
  }
  bool try_lock(std::source_location loc = std::source_location::current()) {
    check_lockable("unique_lock::try_lock");
    return owns_ = detail::try_lock_at(*m_, loc);
  }
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d,
                    std::source_location loc = std::source_location::current()) {
    check_lockable("unique_lock::try_lock_for");
    return owns_ = detail::try_lock_for_at(*m_, d, loc);
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t,
                      std::source_location loc = std::source_location::current()) {
    check_lockable("unique_lock::try_lock_until");
    return owns_ = detail::try_lock_until_at(*m_, t, loc);
  }
  void unlock(std::source_location loc = std::source_location::current()) {
    if (!owns_) detail::lock_error(std::errc::operation_not_permitted, "unique_lock::unlock");
    detail::unlock_at(*m_, loc);
    owns_ = false;
  }

  void swap(unique_lock& other) noexcept {
    std::swap(m_, other.m_);
    std::swap(owns_, other.owns_);
    std::swap(loc_, other.loc_);
  }
  M* release() noexcept {
    owns_ = false;
    return std::exchange(m_, nullptr);
  }
  bool owns_lock() const noexcept { return owns_; }
  explicit operator bool() const noexcept { return owns_; }
  M* mutex() const noexcept { return m_; }

 private:
  void check_lockable(const char* what) const {
    if (m_ == nullptr) detail::lock_error(std::errc::operation_not_permitted, what);
    if (owns_) detail::lock_error(std::errc::resource_deadlock_would_occur, what);
  }

  M* m_ = nullptr;
  bool owns_ = false;
  std::source_location loc_;  // where the lock was made: the destructor's unlock site
};
template <class M>
unique_lock(M&) -> unique_lock<M>;
template <class M>
void swap(unique_lock<M>& a, unique_lock<M>& b) noexcept {
  a.swap(b);
}

template <class M>
class shared_lock {
 public:
  using mutex_type = M;

  shared_lock() noexcept = default;
  explicit shared_lock(M& m, std::source_location loc = std::source_location::current()) : m_(&m), loc_(loc) {
    detail::lock_shared_at(m, loc);
    owns_ = true;
  }
  shared_lock(M& m, defer_lock_t, std::source_location loc = std::source_location::current()) noexcept
      : m_(&m), loc_(loc) {}
  shared_lock(M& m, try_to_lock_t, std::source_location loc = std::source_location::current())
      : m_(&m), owns_(detail::try_lock_shared_at(m, loc)), loc_(loc) {}
  shared_lock(M& m, adopt_lock_t, std::source_location loc = std::source_location::current()) noexcept
      : m_(&m), owns_(true), loc_(loc) {}
  template <class Rep, class Period>
  shared_lock(M& m, const std::chrono::duration<Rep, Period>& d,
              std::source_location loc = std::source_location::current())
      : m_(&m), owns_(detail::try_lock_shared_for_at(m, d, loc)), loc_(loc) {}
  template <class Clock, class Duration>
  shared_lock(M& m, const std::chrono::time_point<Clock, Duration>& t,
              std::source_location loc = std::source_location::current())
      : m_(&m), owns_(detail::try_lock_shared_until_at(m, t, loc)), loc_(loc) {}

  shared_lock(shared_lock&& other) noexcept
      : m_(std::exchange(other.m_, nullptr)), owns_(std::exchange(other.owns_, false)), loc_(other.loc_) {}
  shared_lock& operator=(shared_lock&& other) {
    if (owns_) detail::unlock_shared_at(*m_, loc_);
    m_ = std::exchange(other.m_, nullptr);
    owns_ = std::exchange(other.owns_, false);
    loc_ = other.loc_;
    return *this;
  }
  shared_lock(const shared_lock&) = delete;
  shared_lock& operator=(const shared_lock&) = delete;
  ~shared_lock() noexcept(false) {
    if (owns_) detail::unlock_shared_at(*m_, loc_);
  }

  void lock(std::source_location loc = std::source_location::current()) {
    check_lockable("shared_lock::lock");
    detail::lock_shared_at(*m_, loc);
    owns_ = true;
  }
  bool try_lock(std::source_location loc = std::source_location::current()) {
    check_lockable("shared_lock::try_lock");
    return owns_ = detail::try_lock_shared_at(*m_, loc);
  }
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d,
                    std::source_location loc = std::source_location::current()) {
    check_lockable("shared_lock::try_lock_for");
    return owns_ = detail::try_lock_shared_for_at(*m_, d, loc);
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t,
                      std::source_location loc = std::source_location::current()) {
    check_lockable("shared_lock::try_lock_until");
    return owns_ = detail::try_lock_shared_until_at(*m_, t, loc);
  }
  void unlock(std::source_location loc = std::source_location::current()) {
    if (!owns_) detail::lock_error(std::errc::operation_not_permitted, "shared_lock::unlock");
    detail::unlock_shared_at(*m_, loc);
    owns_ = false;
  }

  void swap(shared_lock& other) noexcept {
    std::swap(m_, other.m_);
    std::swap(owns_, other.owns_);
    std::swap(loc_, other.loc_);
  }
  M* release() noexcept {
    owns_ = false;
    return std::exchange(m_, nullptr);
  }
  bool owns_lock() const noexcept { return owns_; }
  explicit operator bool() const noexcept { return owns_; }
  M* mutex() const noexcept { return m_; }

 private:
  void check_lockable(const char* what) const {
    if (m_ == nullptr) detail::lock_error(std::errc::operation_not_permitted, what);
    if (owns_) detail::lock_error(std::errc::resource_deadlock_would_occur, what);
  }

  M* m_ = nullptr;
  bool owns_ = false;
  std::source_location loc_;
};
template <class M>
shared_lock(M&) -> shared_lock<M>;
template <class M>
void swap(shared_lock<M>& a, shared_lock<M>& b) noexcept {
  a.swap(b);
}

}  // namespace heddle
