// What the ThreadSanitizer entry points (tsan_interface.cpp,
// tsan_atomics.cpp) do under control: memory accesses as optional scheduling
// points checked by the race detector, atomics as modeled atomic operations,
// the shadow call stack, and sync annotations.
//
// Contract: every function here is called only when hooks_active() is true, by
// the running operation; a hook outside control does the real memory
// operation and nothing else. heddle's own code is not instrumented, so none
// of this recurses.
#pragma once

#include <cstdint>

#include "heddle/model.hpp"
#include "rt/race_detector.hpp"

// Internal to libheddle-rt: hidden, so its calls need no PLT.
#pragma GCC visibility push(hidden)
namespace heddle::rt::tsan {

// True when a hook must act: an operation of a controlled iteration runs and
// the iteration is not being unwound.
inline bool hooks_active() noexcept { return detail::control.running != 0 && !detail::control.unwinding; }

// The C ABI's memory orders (tsan_interface_atomic.h).
enum class tsan_order : int { relaxed, consume, acquire, release, acq_rel, seq_cst };

// A plain access the instrumented code is about to make: a scheduling point
// if the memory policy says so, then the race check.
void memory_access(std::uintptr_t address, std::uint32_t size, bool write, std::uintptr_t pc);

// The thread-local storage accesses are not checked in (ignore_thread_storage).
extern std::uintptr_t thread_storage_begin;
extern std::uintptr_t thread_storage_size;

// memory_access with its fast path inline in the hook: a few loads and
// compares when the running operation re-touches its own memory.
inline void plain_access(std::uintptr_t address, std::uint32_t size, bool write, std::uintptr_t pc) {
  if (!hooks_active() || address - thread_storage_begin < thread_storage_size) return;
  if (the_detector->repeats(address, size, write)) return;
  memory_access(address, size, write, pc);
}

// An atomic operation on `address` is about to happen: a read, write or rmw
// point on the atomic's resource.
void atomic_point(point_kind kind, std::uintptr_t address, std::uintptr_t pc);
// Once it has happened (`kind` as for the point, or read for a failed
// compare-exchange): its happens-before edges, then the race check of its
// `size` bytes against plain accesses (an atomic and a plain access to the
// same memory race unless ordered; two atomics never do).
void atomic_edges(point_kind kind, std::uintptr_t address, std::uint32_t size, tsan_order order, std::uintptr_t pc);
// The race check of an atomic access of `size` bytes at `address` against
// plain ones (atomic_edges' check, for rt/weak_atomics.cpp).
void check_atomic_access(std::uintptr_t address, std::uint32_t size, bool write, std::uintptr_t pc);
// The resource of the atomic at `address` in this iteration; forget_atomic
// makes the next one a new resource (a new object, with no history).
const resource& atomic_resource(std::uintptr_t address);
void forget_atomic(std::uintptr_t address);
// Notes an order weaker than seq_cst that runs as seq_cst (the verdict's caveat).
void note_order(tsan_order order);

// --- Under --memory-model rc11 (rt/weak_atomics.cpp) ---
// Whether atomics go through the weak-memory model: an iteration under rc11,
// and a hook that must act.
inline bool weak_memory_on() noexcept { return detail::control.weak_memory && hooks_active(); }
// An atomic access about to happen at [address, address + size): its
// scheduling point, then its location. `modelled` is false for a location the
// model leaves sequentially consistent (mixed-size accesses).
struct weak_access {
  std::uintptr_t address;
  std::uint32_t size;
  object_id object;
  bool modelled;
};
weak_access weak_begin(point_kind kind, std::uintptr_t address, std::uint32_t size, std::uintptr_t pc);
// The same without a scheduling point, for an access made in the step of
// another point (the futex call's comparison, futex.cpp).
weak_access weak_locate(std::uintptr_t address, std::uint32_t size);
// A load: `value` gets the value of the store the model lets it read.
void weak_load(const weak_access& a, tsan_order order, void* value, std::uintptr_t pc);
// A store of `value`, written to memory if it is the newest in modification order.
void weak_store(const weak_access& a, tsan_order order, const void* value, std::uintptr_t pc);
// A read-modify-write's read, before it is done on memory: `value` gets the
// value of the store the model lets it read (engine/weak_memory.hpp,
// rmw_read; the newest for a location it does not model). `expected` is a
// compare-exchange's, null for the others. Memory is left alone.
void weak_rmw_read(const weak_access& a, tsan_order order, tsan_order failure, void* value, const void* expected);
// A read-modify-write already done on memory: it read `before` (what
// weak_rmw_read chose, or the newest value) and, when `wrote`, left `after`
// there. A failed compare-exchange is one that did not write, with its
// failure order. When its store is not the newest in mo, memory gets the
// newest back.
void weak_rmw(const weak_access& a, tsan_order order, const void* before, bool wrote, std::uintptr_t pc);
void weak_fence(tsan_order order);
// [address, address + size) is a new object or no longer one (allocated,
// freed, unmapped): the atomics there lose their store histories.
void weak_forget(std::uintptr_t address, std::uintptr_t size);

// May this compare_exchange_weak, whose comparison would succeed, fail
// spuriously? A rare choice of the strategy when spurious CAS failures are on.
bool spurious_cas_failure(std::uintptr_t address);
// atomic_thread_fence: a fence point, and the fence's edges (race_detector).
void fence(tsan_order order, std::uintptr_t pc);

// The heap and mappings (rt/heap_hooks.cpp), after the C library's call:
// [address, address + size) is a new object; is freed by the running
// operation at `pc` (a write of the whole block, raced with as such, then
// remembered for use-after-free reports); or is unmapped (forgotten).
void heap_allocated(std::uintptr_t address, std::uintptr_t size);
void heap_freed(std::uintptr_t address, std::uintptr_t size, std::uintptr_t pc);
void unmapped(std::uintptr_t address, std::uintptr_t size);

void function_entry(std::uintptr_t caller_pc);
void function_exit();
void ignore_begin();
void ignore_end();

// Annotations (__tsan_acquire/__tsan_release, __tsan_mutex_*): edges through
// a sync object keyed by address.
void annotated_acquire(std::uintptr_t address, bool shared);
void annotated_release(std::uintptr_t address, bool shared);

// Under the fibers backend every operation runs on one OS thread, so the
// thread-local storage [begin, end) of that thread is memory they all share,
// where in production each thread has its own: accesses there are neither
// scheduling points nor checked for races.
void ignore_thread_storage(std::uintptr_t begin, std::uintptr_t end) noexcept;

// Installs the race detector and the report's symbolizer (from __tsan_init).
void install();
// True once some module built with -fsanitize=thread has called __tsan_init:
// without it, heddle sees only synchronization, not memory accesses.
bool instrumented() noexcept;

}  // namespace heddle::rt::tsan
#pragma GCC visibility pop
