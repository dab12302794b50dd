// heddle::shared<T>: a plain, non-atomic shared variable, for modelling
// ordinary memory in tests written against heddle's API.
//
// heddle sees only what passes through its models; a plain `int` shared by two
// operations never yields control, so a lost update on it can never be found
// without compiler instrumentation. shared<T> makes each access visible: a load
// is a read point and a store a write point on the variable's resource (object
// kind `variable`), and compound operations are a separate read then write, as
// the machine code of `x++` on plain memory is. So
//
//   heddle::shared<int> counter{0};
//   // in two operations:  counter++;
//
// can lose an update (both read 0, both write 1), which heddle finds. Use
// heddle::atomic<T> for the fixed version. Bug-suite programs model plain memory
// this way.
//
// Outside an iteration it is an unsynchronized variable: like plain memory,
// concurrent unsynchronized access from real threads is a data race.
#pragma once

#include <source_location>
#include <type_traits>
#include <utility>

#include "heddle/model.hpp"

namespace heddle {

template <class T>
class shared {
  using loc_t = std::source_location;

 public:
  using value_type = T;

  constexpr shared() noexcept(std::is_nothrow_default_constructible_v<T>) : value_() {}
  constexpr shared(T v) noexcept(std::is_nothrow_move_constructible_v<T>) : value_(std::move(v)) {}
  shared(const shared&) = delete;
  shared& operator=(const shared&) = delete;

  // A read point, then the read.
  T load(loc_t loc = loc_t::current()) const {
    scheduling_point(point_kind::read, resource_, loc);
    return value_;
  }
  // A write point, then the write.
  void store(T v, loc_t loc = loc_t::current()) {
    scheduling_point(point_kind::write, resource_, loc);
    value_ = std::move(v);
  }
  operator T() const { return load(); }
  shared& operator=(T v) {
    store(std::move(v));
    return *this;
  }

  // Compound operations: a read point, then a write point, as on plain memory.
  T operator++()
    requires requires(T t) { ++t; }
  {
    T v = load();
    ++v;
    store(v);
    return v;
  }
  T operator++(int)
    requires requires(T t) { ++t; }
  {
    T old = load();
    T v = old;
    ++v;
    store(v);
    return old;
  }
  T operator--()
    requires requires(T t) { --t; }
  {
    T v = load();
    --v;
    store(v);
    return v;
  }
  T operator--(int)
    requires requires(T t) { --t; }
  {
    T old = load();
    T v = old;
    --v;
    store(v);
    return old;
  }
  template <class U>
  shared& operator+=(const U& d)
    requires requires(T t, const U& u) { t += u; }
  {
    return update([&](T& v) { v += d; });
  }
  template <class U>
  shared& operator-=(const U& d)
    requires requires(T t, const U& u) { t -= u; }
  {
    return update([&](T& v) { v -= d; });
  }
  template <class U>
  shared& operator*=(const U& d)
    requires requires(T t, const U& u) { t *= u; }
  {
    return update([&](T& v) { v *= d; });
  }
  template <class U>
  shared& operator&=(const U& d)
    requires requires(T t, const U& u) { t &= u; }
  {
    return update([&](T& v) { v &= d; });
  }
  template <class U>
  shared& operator|=(const U& d)
    requires requires(T t, const U& u) { t |= u; }
  {
    return update([&](T& v) { v |= d; });
  }
  template <class U>
  shared& operator^=(const U& d)
    requires requires(T t, const U& u) { t ^= u; }
  {
    return update([&](T& v) { v ^= d; });
  }

 private:
  template <class F>
  shared& update(F f) {
    T v = load();
    f(v);
    store(std::move(v));
    return *this;
  }

  T value_;
  resource resource_{object_kind::variable};
};

template <class T>
shared(T) -> shared<T>;

}  // namespace heddle
