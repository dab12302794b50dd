// The ThreadSanitizer instrumentation ABI, atomic part: every
// __tsan_atomicN_* operation for N = 8, 16, 32, 64, 128 bits, and the fences.
//
// Under control each operation is a modeled atomic operation: a scheduling
// point (read for loads, write for stores, rmw for the rest) on a resource
// keyed by the address, then the real memory operation on the program's
// memory, then the happens-before edges its memory order implies (acquire for
// an acquire-or-stronger read, release for a release-or-stronger write, both
// for acq_rel and seq_cst; a relaxed one orders through the fences around
// it), then the race check of the access against plain ones. Only one
// operation runs at a time, so the real operation, done sequentially
// consistent, is exact.
// compare_exchange_weak may fail spuriously under control, as heddle::atomic
// does, when spurious CAS failures are on. Outside control only the real
// operation runs. Under --memory-model rc11 the operations go through the
// weak-memory model instead (rt/weak_atomics.cpp): a load or a
// read-modify-write may read an older store than memory holds (the latter then
// computes its new value from that one), and the edges follow the store read.
#include <cstdint>

#include "rt/tsan_runtime.hpp"

#define HEDDLE_TSAN_API extern "C" __attribute__((visibility("default"), used))
#define HEDDLE_CALLER_PC reinterpret_cast<std::uintptr_t>(__builtin_return_address(0))

namespace {

using heddle::point_kind;
using heddle::rt::tsan::tsan_order;
__extension__ typedef __int128 int128;

constexpr int sc = __ATOMIC_SEQ_CST;

template <class T>
std::uintptr_t address_of(const volatile T* a) {
  return reinterpret_cast<std::uintptr_t>(a);
}

// Point before, edges after; the real operation in between.
template <class T, class Op>
T modeled(point_kind kind, const volatile T* a, int order, std::uintptr_t pc, Op op) {
  if (!heddle::rt::tsan::hooks_active()) return op();
  heddle::rt::tsan::atomic_point(kind, address_of(a), pc);
  const T result = op();
  heddle::rt::tsan::atomic_edges(kind, address_of(a), sizeof(T), static_cast<tsan_order>(order), pc);
  return result;
}

namespace tsan = heddle::rt::tsan;

template <class T>
T load(const volatile T* a, int order, std::uintptr_t pc) {
  if (tsan::weak_memory_on()) [[unlikely]] {
    const tsan::weak_access w = tsan::weak_begin(point_kind::read, address_of(a), sizeof(T), pc);
    T v;
    tsan::weak_load(w, static_cast<tsan_order>(order), &v, pc);
    return v;
  }
  return modeled(point_kind::read, a, order, pc, [&] { return __atomic_load_n(a, sc); });
}

template <class T>
void store(volatile T* a, T v, int order, std::uintptr_t pc) {
  if (tsan::weak_memory_on()) [[unlikely]] {
    const tsan::weak_access w = tsan::weak_begin(point_kind::write, address_of(a), sizeof(T), pc);
    tsan::weak_store(w, static_cast<tsan_order>(order), &v, pc);
    return;
  }
  modeled(point_kind::write, a, order, pc, [&] {
    __atomic_store_n(a, v, sc);
    return v;
  });
}

// exchange and fetch_*: `op` does the real operation and returns the old value.
template <class T, class Op>
T read_modify_write(volatile T* a, int order, std::uintptr_t pc, Op op) {
  if (tsan::weak_memory_on()) [[unlikely]] {
    const tsan::weak_access w = tsan::weak_begin(point_kind::rmw, address_of(a), sizeof(T), pc);
    // The model chooses the store it reads; the real operation then computes
    // the new value from that one (weak_rmw puts the newest back in memory
    // when the new store goes before it in mo).
    T before;
    tsan::weak_rmw_read(w, static_cast<tsan_order>(order), static_cast<tsan_order>(order), &before, nullptr);
    __atomic_store_n(a, before, sc);
    op();
    tsan::weak_rmw(w, static_cast<tsan_order>(order), &before, true, pc);
    return before;
  }
  return modeled(point_kind::rmw, a, order, pc, op);
}

template <class T>
int weak_compare_exchange(volatile T* a, T* expected, T desired, int success, int failure, bool weak,
                          std::uintptr_t pc) {
  const tsan::weak_access w = tsan::weak_begin(point_kind::rmw, address_of(a), sizeof(T), pc);
  T current;
  tsan::weak_rmw_read(w, static_cast<tsan_order>(success), static_cast<tsan_order>(failure), &current, expected);
  const bool equal = current == *expected;
  const bool done = equal && !(weak && tsan::spurious_cas_failure(address_of(a)));
  if (done) __atomic_store_n(a, desired, sc);
  else *expected = current;
  // A failed exchange read the store the model chose, with the failure order.
  tsan::weak_rmw(w, static_cast<tsan_order>(done ? success : failure), &current, done, pc);
  return done ? 1 : 0;
}

template <class T>
int compare_exchange(volatile T* a, T* expected, T desired, int success, int failure, bool weak,
                     std::uintptr_t pc) {
  if (!heddle::rt::tsan::hooks_active()) return __atomic_compare_exchange_n(a, expected, desired, weak, sc, sc);
  if (tsan::weak_memory_on()) [[unlikely]]
    return weak_compare_exchange(a, expected, desired, success, failure, weak, pc);
  heddle::rt::tsan::atomic_point(point_kind::rmw, address_of(a), pc);
  bool done = false;
  const T current = __atomic_load_n(a, sc);
  if (weak && current == *expected && heddle::rt::tsan::spurious_cas_failure(address_of(a))) {
    done = false;  // a spurious failure still reports the current value
  } else {
    done = __atomic_compare_exchange_n(a, expected, desired, false, sc, sc);
  }
  if (!done) *expected = current;
  // A failed exchange is a load with the failure order.
  heddle::rt::tsan::atomic_edges(done ? point_kind::rmw : point_kind::read, address_of(a), sizeof(T),
                                 static_cast<tsan_order>(done ? success : failure), pc);
  return done ? 1 : 0;
}

}  // namespace

#define HEDDLE_TSAN_ATOMICS(bits, T)                                                                           \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_load(const volatile T* a, int mo) {                                  \
    return load(a, mo, HEDDLE_CALLER_PC);                                                                      \
  }                                                                                                            \
  HEDDLE_TSAN_API void __tsan_atomic##bits##_store(volatile T* a, T v, int mo) {                               \
    store(a, v, mo, HEDDLE_CALLER_PC);                                                                         \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_exchange(volatile T* a, T v, int mo) {                               \
    return read_modify_write(a, mo, HEDDLE_CALLER_PC, [&] { return __atomic_exchange_n(a, v, sc); });   \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int mo) {                              \
    return read_modify_write(a, mo, HEDDLE_CALLER_PC, [&] { return __atomic_fetch_add(a, v, sc); });    \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int mo) {                              \
    return read_modify_write(a, mo, HEDDLE_CALLER_PC, [&] { return __atomic_fetch_sub(a, v, sc); });    \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int mo) {                              \
    return read_modify_write(a, mo, HEDDLE_CALLER_PC, [&] { return __atomic_fetch_and(a, v, sc); });    \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int mo) {                               \
    return read_modify_write(a, mo, HEDDLE_CALLER_PC, [&] { return __atomic_fetch_or(a, v, sc); });     \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int mo) {                              \
    return read_modify_write(a, mo, HEDDLE_CALLER_PC, [&] { return __atomic_fetch_xor(a, v, sc); });    \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int mo) {                             \
    return read_modify_write(a, mo, HEDDLE_CALLER_PC, [&] { return __atomic_fetch_nand(a, v, sc); });   \
  }                                                                                                            \
  HEDDLE_TSAN_API int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* c, T v, int mo, int fmo) { \
    return compare_exchange(a, c, v, mo, fmo, false, HEDDLE_CALLER_PC);                                        \
  }                                                                                                            \
  HEDDLE_TSAN_API int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* c, T v, int mo, int fmo) { \
    return compare_exchange(a, c, v, mo, fmo, true, HEDDLE_CALLER_PC);                                         \
  }                                                                                                            \
  HEDDLE_TSAN_API T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T c, T v, int mo, int fmo) {     \
    compare_exchange(a, &c, v, mo, fmo, false, HEDDLE_CALLER_PC);                                              \
    return c;                                                                                                  \
  }

HEDDLE_TSAN_ATOMICS(8, std::int8_t)
HEDDLE_TSAN_ATOMICS(16, std::int16_t)
HEDDLE_TSAN_ATOMICS(32, std::int32_t)
HEDDLE_TSAN_ATOMICS(64, std::int64_t)
HEDDLE_TSAN_ATOMICS(128, int128)

#undef HEDDLE_TSAN_ATOMICS

// Fences are points with the ordering C++ gives them: a release fence makes
// the relaxed stores after it publish what came before it, an acquire fence
// makes what the relaxed loads before it read visible after it (see
// race_detector.hpp). gcc 12 and clang 14 both instrument fences.
HEDDLE_TSAN_API void __tsan_atomic_thread_fence(int mo) {
  if (heddle::rt::tsan::hooks_active()) heddle::rt::tsan::fence(static_cast<tsan_order>(mo), HEDDLE_CALLER_PC);
  __atomic_thread_fence(sc);
}
HEDDLE_TSAN_API void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(sc); }
