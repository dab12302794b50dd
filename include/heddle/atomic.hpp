// heddle::atomic<T>, atomic_flag and fences: std's atomics under control.
//
// The value always lives in a real std::atomic, so outside an iteration every
// operation is exactly the std one. Under control, every operation is first a
// scheduling point on the atomic's resource, then the std operation:
//   load, test                        -> read
//   store, clear                      -> write
//   exchange, fetch_*, CAS, operators -> rmw
//   atomic_thread_fence               -> fence
// so the strategy can interleave other operations between any two atomic
// operations. Under memory_model::sc (the default) every operation behaves as
// sequentially consistent whatever memory_order it names. Under
// memory_model::rc11 the engine keeps each atomic's stores in modification
// order (engine/weak_memory.hpp): a load or a read-modify-write may read an
// older store as RC11 allows (the latter then computes its new value from it
// and goes right after it), a store may be ordered before newer ones, and
// the memory orders and fences decide what each operation must see
// (docs/memory-model.md). The real
// std::atomic then always holds the newest value in modification order.
// Values larger than 16 bytes stay sequentially consistent.
//
// compare_exchange_weak may fail spuriously, as in std: when spurious CAS
// failures are enabled and the comparison would succeed, the strategy takes a
// rare choice; if it says so, the call fails and updates `expected`.
// wait(old) blocks while the value equals `old` (bitwise, as std compares)
// until a notify_one/notify_all on the same atomic; a store without a notify
// leaves the waiter blocked, which heddle reports as a deadlock.
//
// Member functions take a trailing std::source_location so reports name user
// lines; operators cannot take one, so their reports name this header. Nothing
// that can reach a scheduling point is noexcept, unlike std: an iteration that
// ends while an operation is paused there unwinds it with an exception.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "heddle/model.hpp"

namespace heddle {

namespace detail {

template <class T>
concept atomic_arithmetic = (std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_floating_point_v<T>;
template <class T>
concept atomic_integral = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T>
struct atomic_difference {
  using type = T;
};
template <class T>
struct atomic_difference<T*> {
  using type = std::ptrdiff_t;
};

// Happens-before edges of an atomic operation for a race detector: an
// acquire-or-stronger read acquires the atomic's clock, a release-or-stronger
// write publishes into it, a read-modify-write does what its order says, a
// relaxed operation neither.
inline void atomic_edges(point_kind kind, const resource& r, std::memory_order order) {
  if (hb == nullptr) return;
  const bool acquires = order != std::memory_order_relaxed && order != std::memory_order_release;
  const bool releases = order == std::memory_order_release || order == std::memory_order_acq_rel ||
                        order == std::memory_order_seq_cst;
  if (kind != point_kind::write && acquires) hb_acquire(r);
  if (kind != point_kind::read && releases) hb_release(r);
}

// Tells the engine that the running iteration used a memory order weaker than
// seq_cst; under memory_model::sc, which runs it as seq_cst, its verdict then
// covers sequentially consistent interleavings only (model_api.cpp).
void note_weak_order() noexcept;

// The scheduling point before an atomic operation, then its edges; outside
// control only an inline load of the control block, so the std path stays cheap.
inline void atomic_point(point_kind kind, const resource& r, const std::source_location& loc,
                         std::memory_order order = std::memory_order_seq_cst) {
  if (!in_control()) return;
  if (order != std::memory_order_seq_cst) [[unlikely]] note_weak_order();
  scheduling_point(kind, r, loc);
  atomic_edges(kind, r, order);
}

// The rc11 model's entry points (engine/weak_memory.cpp). `value` holds the
// newest value on entry and the value read on return. A read-modify-write is
// two calls in one step: wm_rmw_read chooses the store it reads (for a
// compare-exchange, `expected` says which stores it would succeed on), the
// caller computes the new value from it, and wm_rmw records the access,
// placing the new store right after the one read; it returns true when that
// store is the newest in mo (the caller writes it through). wm_rmw without a
// wm_rmw_read before it reads the newest store.
void wm_load(object_id x, std::memory_order order, void* value, std::size_t size, bool latest,
             std::source_location loc);
bool wm_store(object_id x, std::memory_order order, const void* current, const void* value, std::size_t size,
              std::source_location loc);
void wm_rmw_read(object_id x, std::memory_order order, std::memory_order failure, void* value, const void* expected,
                 std::size_t size, std::source_location loc);
bool wm_rmw(object_id x, std::memory_order order, const void* before, const void* after, std::size_t size,
            bool wrote);
// Both in one call, for exchange and fetch_*: `compute(context, value, after)`
// makes the new value from the one read (in `value` on return).
bool wm_rmw_update(object_id x, std::memory_order order, void* value, void* after, std::size_t size,
                   std::source_location loc, void (*compute)(void*, const void*, void*), void* context);
void wm_fence(std::memory_order order);

// The value the running operation's load, read-modify-write or
// compare-exchange saw, noted on its current step for the report, as
// Lincheck's traces show it (model_api.cpp). One out-of-line call that stores
// the bits into the step the engine already recorded; nothing is formatted
// until a report is read.
void note_value_seen(std::uint64_t bits, value_kind kind) noexcept;
void note_compare_exchange(std::uint64_t seen, std::uint64_t expected, value_kind kind, bool succeeded) noexcept;

template <class T>
constexpr value_kind value_kind_of() noexcept {
  if constexpr (std::is_same_v<T, bool>) return value_kind::boolean;
  else if constexpr (std::is_enum_v<T>) return value_kind_of<std::underlying_type_t<T>>();
  else if constexpr (std::is_integral_v<T>) return std::is_signed_v<T> ? value_kind::signed_integer : value_kind::unsigned_integer;
  else if constexpr (std::is_pointer_v<T>) return value_kind::pointer;
  else if constexpr (std::is_floating_point_v<T>) return sizeof(T) <= 8 ? value_kind::floating : value_kind::none;
  else if constexpr (sizeof(T) <= 8) return value_kind::bits;
  else return value_kind::none;
}
template <class T>
std::uint64_t value_bits(const T& v) noexcept {
  if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else if constexpr (std::is_enum_v<T>) return value_bits(static_cast<std::underlying_type_t<T>>(v));
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  else if constexpr (std::is_integral_v<T>) return static_cast<std::uint64_t>(v);
  else if constexpr (std::is_pointer_v<T>) return reinterpret_cast<std::uintptr_t>(v);
  else if constexpr (std::is_floating_point_v<T> && sizeof(T) <= 8) {
    const double d = static_cast<double>(v);
    std::uint64_t b = 0;
    std::memcpy(&b, &d, sizeof b);
    return b;
  } else if constexpr (sizeof(T) <= 8) {
    std::uint64_t b = 0;
    std::memcpy(&b, static_cast<const void*>(&v), sizeof(T));
    return b;
  } else {
    return 0;
  }
}
// Returns `v` after noting it as seen, under control.
template <class T>
HEDDLE_MODEL_INLINE inline T noted(T v) noexcept {
  if constexpr (value_kind_of<T>() != value_kind::none)
    if (control.running != 0) note_value_seen(value_bits(v), value_kind_of<T>());
  return v;
}
// A compare-exchange that expected `wanted` saw `seen` (what `expected` holds
// after it, whether it succeeded or failed) and returned `ok`.
template <class T>
HEDDLE_MODEL_INLINE inline bool noted_cas(bool ok, const T& wanted, const T& seen) noexcept {
  if constexpr (value_kind_of<T>() != value_kind::none)
    if (control.running != 0) note_compare_exchange(value_bits(seen), value_bits(wanted), value_kind_of<T>(), ok);
  return ok;
}

// True when this iteration runs under rc11 and values of T are modelled.
template <class T>
HEDDLE_MODEL_INLINE inline bool weak(const T*) noexcept {
  if constexpr (sizeof(T) <= 16) return control.weak_memory;
  else return false;
}

// Bitwise equality, which std uses for compare-exchange and wait.
template <class T>
bool same_bits(const T& a, const T& b) noexcept {
  return std::memcmp(static_cast<const void*>(&a), static_cast<const void*>(&b), sizeof(T)) == 0;
}

}  // namespace detail

template <class T>
class atomic {
  static_assert(std::is_trivially_copyable_v<T> && std::is_copy_constructible_v<T> &&
                    std::is_move_constructible_v<T> && std::is_copy_assignable_v<T> &&
                    std::is_move_assignable_v<T>,
                "heddle::atomic<T> requires a trivially copyable T, as std::atomic does");
  using loc_t = std::source_location;
  static constexpr auto seq = std::memory_order_seq_cst;

 public:
  using value_type = T;
  using difference_type = typename detail::atomic_difference<T>::type;
  static constexpr bool is_always_lock_free = std::atomic<T>::is_always_lock_free;

  constexpr atomic() noexcept(std::is_nothrow_default_constructible_v<T>) : value_(T()) {}
  constexpr atomic(T desired) noexcept : value_(desired) {}
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;
  atomic& operator=(const atomic&) volatile = delete;

  bool is_lock_free() const noexcept { return value_.is_lock_free(); }

  T load(std::memory_order order = seq, loc_t loc = loc_t::current()) const {
    detail::atomic_point(point_kind::read, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]] return detail::noted(weak_load(order, loc, false));
    return detail::noted(value_.load(order));
  }
  void store(T desired, std::memory_order order = seq, loc_t loc = loc_t::current()) {
    detail::atomic_point(point_kind::write, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]] {
      const T current = value_.load(std::memory_order_relaxed);
      if (detail::wm_store(resource_.id(), order, &current, &desired, sizeof(T), loc)) value_.store(desired, order);
      return;
    }
    value_.store(desired, order);
  }
  operator T() const { return load(); }
  T operator=(T desired) {
    store(desired);
    return desired;
  }
  T exchange(T desired, std::memory_order order = seq, loc_t loc = loc_t::current()) {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted(weak_update(order, loc, [&desired](std::atomic<T>& t) { t.store(desired, std::memory_order_relaxed); }));
    return detail::noted(value_.exchange(desired, order));
  }

  bool compare_exchange_strong(T& expected, T desired, std::memory_order order = seq, loc_t loc = loc_t::current()) {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    const T wanted = expected;
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted_cas(weak_cas(expected, desired, order, failure_order(order), loc, false), wanted, expected);
    return detail::noted_cas(value_.compare_exchange_strong(expected, desired, order), wanted, expected);
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order success, std::memory_order failure,
                               loc_t loc = loc_t::current()) {
    detail::atomic_point(point_kind::rmw, resource_, loc, success);
    if (failure != seq) detail::note_weak_order();
    const T wanted = expected;
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted_cas(weak_cas(expected, desired, success, failure, loc, false), wanted, expected);
    return detail::noted_cas(value_.compare_exchange_strong(expected, desired, success, failure), wanted, expected);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order order = seq, loc_t loc = loc_t::current()) {
    if (!in_control()) return value_.compare_exchange_weak(expected, desired, order);
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    const T wanted = expected;
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted_cas(weak_cas(expected, desired, order, failure_order(order), loc, true), wanted, expected);
    if (spurious_failure(expected, loc)) return detail::noted_cas(false, wanted, expected);
    // no unrecorded hardware failure
    return detail::noted_cas(value_.compare_exchange_strong(expected, desired, order), wanted, expected);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order success, std::memory_order failure,
                             loc_t loc = loc_t::current()) {
    if (!in_control()) return value_.compare_exchange_weak(expected, desired, success, failure);
    detail::atomic_point(point_kind::rmw, resource_, loc, success);
    if (failure != seq) detail::note_weak_order();
    const T wanted = expected;
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted_cas(weak_cas(expected, desired, success, failure, loc, true), wanted, expected);
    if (spurious_failure(expected, loc)) return detail::noted_cas(false, wanted, expected);
    return detail::noted_cas(value_.compare_exchange_strong(expected, desired, success, failure), wanted, expected);
  }

  // --- integral, floating-point and pointer arithmetic ---
  T fetch_add(difference_type arg, std::memory_order order = seq, loc_t loc = loc_t::current())
    requires(detail::atomic_arithmetic<T> || std::is_pointer_v<T>)
  {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted(weak_update(order, loc, [arg](std::atomic<T>& t) { t.fetch_add(arg, std::memory_order_relaxed); }));
    return detail::noted(value_.fetch_add(arg, order));
  }
  T fetch_sub(difference_type arg, std::memory_order order = seq, loc_t loc = loc_t::current())
    requires(detail::atomic_arithmetic<T> || std::is_pointer_v<T>)
  {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted(weak_update(order, loc, [arg](std::atomic<T>& t) { t.fetch_sub(arg, std::memory_order_relaxed); }));
    return detail::noted(value_.fetch_sub(arg, order));
  }
  T fetch_and(T arg, std::memory_order order = seq, loc_t loc = loc_t::current())
    requires detail::atomic_integral<T>
  {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted(weak_update(order, loc, [arg](std::atomic<T>& t) { t.fetch_and(arg, std::memory_order_relaxed); }));
    return detail::noted(value_.fetch_and(arg, order));
  }
  T fetch_or(T arg, std::memory_order order = seq, loc_t loc = loc_t::current())
    requires detail::atomic_integral<T>
  {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted(weak_update(order, loc, [arg](std::atomic<T>& t) { t.fetch_or(arg, std::memory_order_relaxed); }));
    return detail::noted(value_.fetch_or(arg, order));
  }
  T fetch_xor(T arg, std::memory_order order = seq, loc_t loc = loc_t::current())
    requires detail::atomic_integral<T>
  {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    if (detail::weak(&value_)) [[unlikely]]
      return detail::noted(weak_update(order, loc, [arg](std::atomic<T>& t) { t.fetch_xor(arg, std::memory_order_relaxed); }));
    return detail::noted(value_.fetch_xor(arg, order));
  }

  T operator++()
    requires(detail::atomic_integral<T> || std::is_pointer_v<T>)
  {
    return fetch_add(1) + 1;
  }
  T operator++(int)
    requires(detail::atomic_integral<T> || std::is_pointer_v<T>)
  {
    return fetch_add(1);
  }
  T operator--()
    requires(detail::atomic_integral<T> || std::is_pointer_v<T>)
  {
    return fetch_sub(1) - 1;
  }
  T operator--(int)
    requires(detail::atomic_integral<T> || std::is_pointer_v<T>)
  {
    return fetch_sub(1);
  }
  T operator+=(difference_type arg)
    requires(detail::atomic_arithmetic<T> || std::is_pointer_v<T>)
  {
    return fetch_add(arg) + arg;
  }
  T operator-=(difference_type arg)
    requires(detail::atomic_arithmetic<T> || std::is_pointer_v<T>)
  {
    return fetch_sub(arg) - arg;
  }
  T operator&=(T arg)
    requires detail::atomic_integral<T>
  {
    return fetch_and(arg) & arg;
  }
  T operator|=(T arg)
    requires detail::atomic_integral<T>
  {
    return fetch_or(arg) | arg;
  }
  T operator^=(T arg)
    requires detail::atomic_integral<T>
  {
    return fetch_xor(arg) ^ arg;
  }

  // --- waiting (C++20) ---
  void wait(T old, std::memory_order order = seq, loc_t loc = loc_t::current()) const {
    if (!in_control()) {
      value_.wait(old, order);
      return;
    }
    detail::atomic_point(point_kind::read, resource_, loc, order);
    // Under rc11 each check reads the newest store, so a notify after a store
    // always ends the wait, as the standard's eligibility rule requires.
    while (detail::same_bits(detail::noted(detail::weak(&value_) ? weak_load(order, loc, true) : value_.load(order)), old))
      heddle::wait(resource_, loc);
  }
  void notify_one(loc_t loc = loc_t::current()) {
    if (!in_control()) {
      value_.notify_one();
      return;
    }
    scheduling_point(point_kind::signal, resource_, loc);
    signal_one(resource_);
  }
  void notify_all(loc_t loc = loc_t::current()) {
    if (!in_control()) {
      value_.notify_all();
      return;
    }
    scheduling_point(point_kind::signal, resource_, loc);
    broadcast(resource_);
  }

 private:
  // Under control, with the comparison about to succeed: may the strategy make
  // this compare_exchange_weak fail anyway? Then `expected` gets the value.
  bool spurious_failure(T& expected, loc_t loc) {
    if (!spurious_cas_failures_enabled()) return false;
    const T current = value_.load(std::memory_order_relaxed);
    if (!detail::same_bits(current, expected)) return false;
    if (!choose_rare(point_kind::rmw, resource_, loc)) return false;
    expected = current;
    return true;
  }

  static constexpr std::memory_order failure_order(std::memory_order o) noexcept {
    return o == std::memory_order_acq_rel ? std::memory_order_acquire
           : o == std::memory_order_release ? std::memory_order_relaxed
                                            : o;
  }
  // rc11: a load reads a store the model chooses (the newest when `latest`).
  T weak_load(std::memory_order order, loc_t loc, bool latest) const {
    T v = value_.load(std::memory_order_relaxed);
    detail::wm_load(resource_.id(), order, &v, sizeof(T), latest, loc);
    return v;
  }
  // rc11: a read-modify-write reads the store the model chooses (any store
  // no other read-modify-write read, from what this operation has seen on),
  // `apply` computes its new value from that one as std would, and the new
  // store goes right after it in mo; it is written through when newest.
  template <class F>
  T weak_update(std::memory_order order, loc_t loc, F apply) {
    T before = value_.load(std::memory_order_relaxed);
    std::array<unsigned char, sizeof(T)> after;
    const auto compute = [](void* f, const void* read, void* out) {
      std::atomic<T> scratch(*static_cast<const T*>(read));
      (*static_cast<F*>(f))(scratch);
      const T v = scratch.load(std::memory_order_relaxed);
      std::memcpy(out, static_cast<const void*>(&v), sizeof(T));
    };
    if (detail::wm_rmw_update(resource_.id(), order, &before, after.data(), sizeof(T), loc, compute, &apply))
      value_.store(std::bit_cast<T>(after), std::memory_order_relaxed);
    return before;
  }
  // rc11: a compare-exchange reads the store the model chooses; it succeeds
  // when that store holds `expected` (a read-modify-write), and fails
  // otherwise (a load with the failure order, its value now in `expected`).
  // A weak one may also fail spuriously on a store that holds `expected`.
  bool weak_cas(T& expected, const T& desired, std::memory_order success, std::memory_order failure, loc_t loc,
                bool weak_exchange) {
    T seen = value_.load(std::memory_order_relaxed);
    detail::wm_rmw_read(resource_.id(), success, failure, &seen, &expected, sizeof(T), loc);
    if (detail::same_bits(seen, expected) &&
        !(weak_exchange && spurious_cas_failures_enabled() && choose_rare(point_kind::rmw, resource_, loc))) {
      if (detail::wm_rmw(resource_.id(), success, &seen, &desired, sizeof(T), true))
        value_.store(desired, std::memory_order_relaxed);
      return true;
    }
    detail::wm_rmw(resource_.id(), failure, &seen, &seen, sizeof(T), false);
    expected = seen;
    return false;
  }

  std::atomic<T> value_;
  resource resource_{object_kind::atomic};
};

template <class T>
atomic(T) -> atomic<T>;

// std::atomic_flag under control: test_and_set is rmw, clear a write, test a read.
class atomic_flag {
  using loc_t = std::source_location;
  static constexpr auto seq = std::memory_order_seq_cst;

 public:
  constexpr atomic_flag() noexcept = default;
  atomic_flag(const atomic_flag&) = delete;
  atomic_flag& operator=(const atomic_flag&) = delete;

  bool test(std::memory_order order = seq, loc_t loc = loc_t::current()) const {
    detail::atomic_point(point_kind::read, resource_, loc, order);
    if (detail::weak(&flag_)) [[unlikely]] return detail::noted(weak_test(order, loc, false));
    return detail::noted(flag_.test(order));
  }
  bool test_and_set(std::memory_order order = seq, loc_t loc = loc_t::current()) {
    detail::atomic_point(point_kind::rmw, resource_, loc, order);
    if (detail::weak(&flag_)) [[unlikely]] {
      bool before = flag_.test(std::memory_order_relaxed);
      const bool after = true;
      detail::wm_rmw_read(resource_.id(), order, order, &before, nullptr, sizeof(bool), loc);
      if (detail::wm_rmw(resource_.id(), order, &before, &after, sizeof(bool), true))
        flag_.test_and_set(std::memory_order_relaxed);
      return detail::noted(before);
    }
    return detail::noted(flag_.test_and_set(order));
  }
  void clear(std::memory_order order = seq, loc_t loc = loc_t::current()) {
    detail::atomic_point(point_kind::write, resource_, loc, order);
    if (detail::weak(&flag_)) [[unlikely]] {
      const bool current = flag_.test(std::memory_order_relaxed), desired = false;
      if (detail::wm_store(resource_.id(), order, &current, &desired, sizeof(bool), loc)) flag_.clear(order);
      return;
    }
    flag_.clear(order);
  }
  void wait(bool old, std::memory_order order = seq, loc_t loc = loc_t::current()) const {
    if (!in_control()) {
      flag_.wait(old, order);
      return;
    }
    detail::atomic_point(point_kind::read, resource_, loc, order);
    while (detail::noted(detail::weak(&flag_) ? weak_test(order, loc, true) : flag_.test(order)) == old)
      heddle::wait(resource_, loc);
  }
  void notify_one(loc_t loc = loc_t::current()) {
    if (!in_control()) {
      flag_.notify_one();
      return;
    }
    scheduling_point(point_kind::signal, resource_, loc);
    signal_one(resource_);
  }
  void notify_all(loc_t loc = loc_t::current()) {
    if (!in_control()) {
      flag_.notify_all();
      return;
    }
    scheduling_point(point_kind::signal, resource_, loc);
    broadcast(resource_);
  }

 private:
  bool weak_test(std::memory_order order, loc_t loc, bool latest) const {
    bool v = flag_.test(std::memory_order_relaxed);
    detail::wm_load(resource_.id(), order, &v, sizeof(bool), latest, loc);
    return v;
  }

  std::atomic_flag flag_;
  resource resource_{object_kind::atomic};
};

// A fence point (under control) followed by the std fence.
void atomic_thread_fence(std::memory_order order, std::source_location loc = std::source_location::current());
// Orders against signal handlers on the same thread only: no other operation can
// observe it, so it is not a scheduling point.
inline void atomic_signal_fence(std::memory_order order) noexcept { std::atomic_signal_fence(order); }

// --- free-function forms ---
template <class T>
bool atomic_is_lock_free(const atomic<T>* a) noexcept {
  return a->is_lock_free();
}
template <class T>
T atomic_load(const atomic<T>* a, std::source_location loc = std::source_location::current()) {
  return a->load(std::memory_order_seq_cst, loc);
}
template <class T>
T atomic_load_explicit(const atomic<T>* a, std::memory_order order,
                       std::source_location loc = std::source_location::current()) {
  return a->load(order, loc);
}
template <class T>
void atomic_store(atomic<T>* a, typename atomic<T>::value_type v,
                  std::source_location loc = std::source_location::current()) {
  a->store(v, std::memory_order_seq_cst, loc);
}
template <class T>
void atomic_store_explicit(atomic<T>* a, typename atomic<T>::value_type v, std::memory_order order,
                           std::source_location loc = std::source_location::current()) {
  a->store(v, order, loc);
}
template <class T>
T atomic_exchange(atomic<T>* a, typename atomic<T>::value_type v,
                  std::source_location loc = std::source_location::current()) {
  return a->exchange(v, std::memory_order_seq_cst, loc);
}
template <class T>
T atomic_exchange_explicit(atomic<T>* a, typename atomic<T>::value_type v, std::memory_order order,
                           std::source_location loc = std::source_location::current()) {
  return a->exchange(v, order, loc);
}
template <class T>
bool atomic_compare_exchange_weak(atomic<T>* a, typename atomic<T>::value_type* expected,
                                  typename atomic<T>::value_type desired,
                                  std::source_location loc = std::source_location::current()) {
  return a->compare_exchange_weak(*expected, desired, std::memory_order_seq_cst, loc);
}
template <class T>
bool atomic_compare_exchange_strong(atomic<T>* a, typename atomic<T>::value_type* expected,
                                    typename atomic<T>::value_type desired,
                                    std::source_location loc = std::source_location::current()) {
  return a->compare_exchange_strong(*expected, desired, std::memory_order_seq_cst, loc);
}
template <class T>
bool atomic_compare_exchange_weak_explicit(atomic<T>* a, typename atomic<T>::value_type* expected,
                                           typename atomic<T>::value_type desired, std::memory_order success,
                                           std::memory_order failure,
                                           std::source_location loc = std::source_location::current()) {
  return a->compare_exchange_weak(*expected, desired, success, failure, loc);
}
template <class T>
bool atomic_compare_exchange_strong_explicit(atomic<T>* a, typename atomic<T>::value_type* expected,
                                             typename atomic<T>::value_type desired, std::memory_order success,
                                             std::memory_order failure,
                                             std::source_location loc = std::source_location::current()) {
  return a->compare_exchange_strong(*expected, desired, success, failure, loc);
}
template <class T>
T atomic_fetch_add(atomic<T>* a, typename atomic<T>::difference_type arg,
                   std::source_location loc = std::source_location::current()) {
  return a->fetch_add(arg, std::memory_order_seq_cst, loc);
}
template <class T>
T atomic_fetch_add_explicit(atomic<T>* a, typename atomic<T>::difference_type arg, std::memory_order order,
                            std::source_location loc = std::source_location::current()) {
  return a->fetch_add(arg, order, loc);
}
template <class T>
T atomic_fetch_sub(atomic<T>* a, typename atomic<T>::difference_type arg,
                   std::source_location loc = std::source_location::current()) {
  return a->fetch_sub(arg, std::memory_order_seq_cst, loc);
}
template <class T>
T atomic_fetch_sub_explicit(atomic<T>* a, typename atomic<T>::difference_type arg, std::memory_order order,
                            std::source_location loc = std::source_location::current()) {
  return a->fetch_sub(arg, order, loc);
}
template <class T>
T atomic_fetch_and(atomic<T>* a, typename atomic<T>::value_type arg,
                   std::source_location loc = std::source_location::current()) {
  return a->fetch_and(arg, std::memory_order_seq_cst, loc);
}
template <class T>
T atomic_fetch_or(atomic<T>* a, typename atomic<T>::value_type arg,
                  std::source_location loc = std::source_location::current()) {
  return a->fetch_or(arg, std::memory_order_seq_cst, loc);
}
template <class T>
T atomic_fetch_xor(atomic<T>* a, typename atomic<T>::value_type arg,
                   std::source_location loc = std::source_location::current()) {
  return a->fetch_xor(arg, std::memory_order_seq_cst, loc);
}
template <class T>
void atomic_wait(const atomic<T>* a, typename atomic<T>::value_type old,
                 std::source_location loc = std::source_location::current()) {
  a->wait(old, std::memory_order_seq_cst, loc);
}
template <class T>
void atomic_notify_one(atomic<T>* a, std::source_location loc = std::source_location::current()) {
  a->notify_one(loc);
}
template <class T>
void atomic_notify_all(atomic<T>* a, std::source_location loc = std::source_location::current()) {
  a->notify_all(loc);
}
inline bool atomic_flag_test_and_set(atomic_flag* f, std::source_location loc = std::source_location::current()) {
  return f->test_and_set(std::memory_order_seq_cst, loc);
}
inline void atomic_flag_clear(atomic_flag* f, std::source_location loc = std::source_location::current()) {
  f->clear(std::memory_order_seq_cst, loc);
}
inline bool atomic_flag_test(const atomic_flag* f, std::source_location loc = std::source_location::current()) {
  return f->test(std::memory_order_seq_cst, loc);
}

// The std aliases most code uses.
using atomic_bool = atomic<bool>;
using atomic_char = atomic<char>;
using atomic_int = atomic<int>;
using atomic_uint = atomic<unsigned>;
using atomic_long = atomic<long>;
using atomic_ulong = atomic<unsigned long>;
using atomic_llong = atomic<long long>;
using atomic_ullong = atomic<unsigned long long>;
using atomic_size_t = atomic<std::size_t>;
using atomic_ptrdiff_t = atomic<std::ptrdiff_t>;
using atomic_intptr_t = atomic<std::intptr_t>;
using atomic_uintptr_t = atomic<std::uintptr_t>;
using atomic_int32_t = atomic<std::int32_t>;
using atomic_uint32_t = atomic<std::uint32_t>;
using atomic_int64_t = atomic<std::int64_t>;
using atomic_uint64_t = atomic<std::uint64_t>;

}  // namespace heddle
