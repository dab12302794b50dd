// The ThreadSanitizer instrumentation ABI, non-atomic part: what gcc 12 and
// clang 14 emit for -fsanitize=thread, implemented in place of libtsan.
//
// Plain reads and writes of every width (aligned, unaligned, volatile,
// compound read-write, ranges, with explicit pc), vptr accesses, function
// entry and exit, __tsan_init, ignore regions and the sync annotations. The
// list comes from compiling tests/tsan/corpus with both compilers and reading
// `nm -u`; tests/tsan checks that every __tsan_ symbol they emit is defined
// here or in tsan_atomics.cpp.
//
// Contract: outside control every hook returns at once (one thread-local load
// and a branch); under control an operation re-touching its own memory stops
// at the detector's inline fast path (race_detector::repeats), and anything
// else goes to tsan_runtime.cpp with the caller's pc.
#include <cstdint>

#include "engine/instrumented_code.hpp"
#include "rt/tsan_runtime.hpp"

#define HEDDLE_TSAN_API extern "C" __attribute__((visibility("default"), used))
#define HEDDLE_CALLER_PC reinterpret_cast<std::uintptr_t>(__builtin_return_address(0))

namespace {
inline void plain_access(const void* address, std::uint32_t size, bool write, std::uintptr_t pc) {
  heddle::rt::tsan::plain_access(reinterpret_cast<std::uintptr_t>(address), size, write, pc);
}
}  // namespace

// One family per width: __tsan_read4, __tsan_write4, __tsan_unaligned_read4,
// __tsan_volatile_read4, __tsan_read_write4, __tsan_read4_pc, ...
#define HEDDLE_TSAN_ACCESS(n)                                                                                   \
  HEDDLE_TSAN_API void __tsan_read##n(void* a) { plain_access(a, n, false, HEDDLE_CALLER_PC); }                       \
  HEDDLE_TSAN_API void __tsan_write##n(void* a) { plain_access(a, n, true, HEDDLE_CALLER_PC); }                       \
  HEDDLE_TSAN_API void __tsan_read_write##n(void* a) { plain_access(a, n, true, HEDDLE_CALLER_PC); }                  \
  HEDDLE_TSAN_API void __tsan_unaligned_read##n(const void* a) { plain_access(a, n, false, HEDDLE_CALLER_PC); }       \
  HEDDLE_TSAN_API void __tsan_unaligned_write##n(void* a) { plain_access(a, n, true, HEDDLE_CALLER_PC); }             \
  HEDDLE_TSAN_API void __tsan_unaligned_read_write##n(void* a) { plain_access(a, n, true, HEDDLE_CALLER_PC); }        \
  HEDDLE_TSAN_API void __tsan_volatile_read##n(void* a) { plain_access(a, n, false, HEDDLE_CALLER_PC); }              \
  HEDDLE_TSAN_API void __tsan_volatile_write##n(void* a) { plain_access(a, n, true, HEDDLE_CALLER_PC); }              \
  HEDDLE_TSAN_API void __tsan_unaligned_volatile_read##n(void* a) { plain_access(a, n, false, HEDDLE_CALLER_PC); }    \
  HEDDLE_TSAN_API void __tsan_unaligned_volatile_write##n(void* a) { plain_access(a, n, true, HEDDLE_CALLER_PC); }    \
  HEDDLE_TSAN_API void __tsan_read##n##_pc(void* a, void* pc) {                                                 \
    plain_access(a, n, false, reinterpret_cast<std::uintptr_t>(pc));                                                  \
  }                                                                                                             \
  HEDDLE_TSAN_API void __tsan_write##n##_pc(void* a, void* pc) { plain_access(a, n, true, reinterpret_cast<std::uintptr_t>(pc)); }

HEDDLE_TSAN_ACCESS(1)
HEDDLE_TSAN_ACCESS(2)
HEDDLE_TSAN_ACCESS(4)
HEDDLE_TSAN_ACCESS(8)
HEDDLE_TSAN_ACCESS(16)

#undef HEDDLE_TSAN_ACCESS

namespace {
// Ranges (struct copies, memcpy the compiler inlined): one access per range,
// split into granules by the detector; as a point, one point for the range.
inline void range(const void* address, unsigned long size, bool write, std::uintptr_t pc) {
  if (size > 0xffffffffUL) size = 0xffffffffUL;
  plain_access(address, static_cast<std::uint32_t>(size), write, pc);
}
}  // namespace

HEDDLE_TSAN_API void __tsan_read_range(void* a, unsigned long size) { range(a, size, false, HEDDLE_CALLER_PC); }
HEDDLE_TSAN_API void __tsan_write_range(void* a, unsigned long size) { range(a, size, true, HEDDLE_CALLER_PC); }
HEDDLE_TSAN_API void __tsan_read_range_pc(void* a, unsigned long size, void* pc) {
  range(a, size, false, reinterpret_cast<std::uintptr_t>(pc));
}
HEDDLE_TSAN_API void __tsan_write_range_pc(void* a, unsigned long size, void* pc) {
  range(a, size, true, reinterpret_cast<std::uintptr_t>(pc));
}

// The vtable pointer: a constructor or destructor updates it (a write only
// when it changes, as libtsan does, so constructing a derived object is not a
// write race with a virtual call on its base), a virtual call reads it.
HEDDLE_TSAN_API void __tsan_vptr_update(void** vptr_p, void* new_val) {
  if (heddle::rt::tsan::hooks_active() && *vptr_p != new_val) plain_access(vptr_p, sizeof(void*), true, HEDDLE_CALLER_PC);
}
HEDDLE_TSAN_API void __tsan_vptr_read(void** vptr_p) { plain_access(vptr_p, sizeof(void*), false, HEDDLE_CALLER_PC); }

// The shadow call stack: the pc each instrumented function was called from.
HEDDLE_TSAN_API void __tsan_func_entry(void* caller_pc) {
  if (heddle::rt::tsan::hooks_active()) heddle::rt::tsan::function_entry(reinterpret_cast<std::uintptr_t>(caller_pc));
}
HEDDLE_TSAN_API void __tsan_func_exit() {
  if (heddle::rt::tsan::hooks_active()) heddle::rt::tsan::function_exit();
}

// Every instrumented module's constructor calls this first.
HEDDLE_TSAN_API void __tsan_init() {
  heddle::detail::note_instrumented_code();  // plain memory is seen (verdict caveats)
  heddle::rt::tsan::install();
}

HEDDLE_TSAN_API void __tsan_ignore_thread_begin() {
  if (heddle::rt::tsan::hooks_active()) heddle::rt::tsan::ignore_begin();
}
HEDDLE_TSAN_API void __tsan_ignore_thread_end() {
  if (heddle::rt::tsan::hooks_active()) heddle::rt::tsan::ignore_end();
}

// Annotations a program (or a library such as abseil) may make by hand.
HEDDLE_TSAN_API void __tsan_acquire(void* a) {
  if (heddle::rt::tsan::hooks_active()) heddle::rt::tsan::annotated_acquire(reinterpret_cast<std::uintptr_t>(a), false);
}
HEDDLE_TSAN_API void __tsan_release(void* a) {
  if (heddle::rt::tsan::hooks_active()) heddle::rt::tsan::annotated_release(reinterpret_cast<std::uintptr_t>(a), false);
}

namespace {
constexpr unsigned mutex_read_lock = 1u << 3;  // __tsan_mutex_read_lock
constexpr unsigned mutex_try_lock_failed = 1u << 5;  // __tsan_mutex_try_lock_failed
}  // namespace

HEDDLE_TSAN_API void __tsan_mutex_create(void*, unsigned) {}
HEDDLE_TSAN_API void __tsan_mutex_destroy(void*, unsigned) {}
HEDDLE_TSAN_API void __tsan_mutex_pre_lock(void*, unsigned) {}
HEDDLE_TSAN_API void __tsan_mutex_post_lock(void* a, unsigned flags, int) {
  if (heddle::rt::tsan::hooks_active() && (flags & mutex_try_lock_failed) == 0)
    heddle::rt::tsan::annotated_acquire(reinterpret_cast<std::uintptr_t>(a), (flags & mutex_read_lock) != 0);
}
HEDDLE_TSAN_API int __tsan_mutex_pre_unlock(void* a, unsigned flags) {
  if (heddle::rt::tsan::hooks_active())
    heddle::rt::tsan::annotated_release(reinterpret_cast<std::uintptr_t>(a), (flags & mutex_read_lock) != 0);
  return 0;
}
HEDDLE_TSAN_API void __tsan_mutex_post_unlock(void*, unsigned) {}
HEDDLE_TSAN_API void __tsan_mutex_pre_signal(void*, unsigned) {}
HEDDLE_TSAN_API void __tsan_mutex_post_signal(void*, unsigned) {}
HEDDLE_TSAN_API void __tsan_mutex_pre_divert(void*, unsigned) {}
HEDDLE_TSAN_API void __tsan_mutex_post_divert(void*, unsigned) {}
