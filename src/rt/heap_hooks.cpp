// The heap and anonymous mappings as the race detector sees them: malloc,
// calloc, realloc, reallocarray, free, aligned_alloc, posix_memalign,
// memalign, valloc, pvalloc, every operator new and delete, mmap and munmap.
//
// Each wrapper calls the allocator that comes next in symbol lookup order
// (dlsym(RTLD_NEXT): the C library's, or a malloc the program brings), so
// where memory lands is the allocator's business alone, as without heddle.
// Under control it then tells the detector (rt/tsan_runtime.hpp): a new block
// starts a fresh history, so memory freed by one operation and handed to
// another is no race; a free is a write of the whole block, so a free racing
// with a use is a race, and a use after it a use after free; an unmapped
// range is forgotten. Outside control, or in a program with no instrumented
// code (nothing to check), a wrapper is the allocator plus one branch.
//
// Where heddle's own allocations would move the program's blocks (in the
// fork server, and its strategy's in a child), every wrapper serves them from
// rt/runtime_heap.hpp instead, and a free or realloc of such a block goes
// back there, whoever makes it.
//
// operator new and delete are defined here, as libstdc++ defines them (over
// malloc, aligned_alloc and free, with the new-handler loop), only so that a
// report names the user's delete rather than libstdc++'s call to free.
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "rt/pthread_runtime.hpp"
#include "rt/runtime_heap.hpp"
#include "rt/tsan_runtime.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

#define HEDDLE_HOOK extern "C" __attribute__((visibility("default"), used))
#define HEDDLE_CALLER_PC reinterpret_cast<std::uintptr_t>(__builtin_return_address(0))

namespace {

namespace tsan = heddle::rt::tsan;
namespace own = heddle::rt::runtime_heap;

struct allocator {
  void* (*malloc)(std::size_t) = nullptr;
  void* (*calloc)(std::size_t, std::size_t) = nullptr;
  void* (*realloc)(void*, std::size_t) = nullptr;
  void (*free)(void*) = nullptr;
  void* (*aligned_alloc)(std::size_t, std::size_t) = nullptr;
  int (*posix_memalign)(void**, std::size_t, std::size_t) = nullptr;
  void* (*memalign)(std::size_t, std::size_t) = nullptr;
  void* (*valloc)(std::size_t) = nullptr;
  void* (*pvalloc)(std::size_t) = nullptr;
  std::size_t (*usable_size)(void*) = nullptr;
  void* (*mmap)(void*, std::size_t, int, int, int, off_t) = nullptr;
  int (*munmap)(void*, std::size_t) = nullptr;
};

allocator next;
// dlsym may allocate; while it runs, the C library's own entry points serve.
bool resolving = false;
bool resolved = false;

template <class F>
void look_up(F& f, const char* name) {
  f = reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

// The next allocator, or null while it is being looked up. The first call
// comes from the loader or a constructor, before any thread exists; a second
// thread that races it looks the same symbols up again, harmlessly.
const allocator* real() {
  if (__builtin_expect(resolved, true)) return &next;
  if (resolving) return nullptr;
  resolving = true;
  allocator found;
  look_up(found.malloc, "malloc");
  look_up(found.calloc, "calloc");
  look_up(found.realloc, "realloc");
  look_up(found.free, "free");
  look_up(found.aligned_alloc, "aligned_alloc");
  look_up(found.posix_memalign, "posix_memalign");
  look_up(found.memalign, "memalign");
  look_up(found.valloc, "valloc");
  look_up(found.pvalloc, "pvalloc");
  look_up(found.usable_size, "malloc_usable_size");
  look_up(found.mmap, "mmap");
  look_up(found.munmap, "munmap");
  next = found;
  resolving = false;
  resolved = true;
  return &next;
}

// Set while a hook tells the runtime: the runtime's own allocations then are
// its business, not the program's (and would recurse). A plain global: only
// the running operation gets past hooks_active(), one at a time.
bool telling = false;

class telling_scope {
 public:
  telling_scope() noexcept { telling = true; }
  ~telling_scope() { telling = false; }
  telling_scope(const telling_scope&) = delete;
  telling_scope& operator=(const telling_scope&) = delete;
};

// heddle's own code (rt::runtime_code). It shares the C library's heap with
// the program, and the heap hands it blocks the program just freed: its own
// allocations must neither start a fresh history (the program's use of a
// block it freed would go unseen) nor count as the program's frees.
bool from_runtime(std::uintptr_t pc) { return heddle::rt::runtime_code(pc); }

// heddle's own allocation, once the constructor below found heddle's code
// (the loader allocates before it runs, when dl_iterate_phdr is not for use).
bool runtime_allocates(std::uintptr_t pc) noexcept { return heddle::rt::runtime_code_found(pc); }

// Found once at load, not in each fork server child.
[[gnu::constructor]] void find_runtime_at_load() { (void)from_runtime(0); }

// Is a call from `pc` the program's, under control?
inline bool controlled_call(std::uintptr_t pc) noexcept {
  return tsan::hooks_active() && !telling && !from_runtime(pc);
}

// Is there anything to tell the race detector about a call from `pc`? Under
// control, and only if some code is instrumented: without it, the detector
// sees no access to check.
inline bool tracking(std::uintptr_t pc) noexcept { return controlled_call(pc) && tsan::instrumented(); }

// Memory the program got (or gave back to the system): the objects there are
// new, for the pthread side tables (instrumented or not) and the race
// detector's objects (when instrumented).
void tell_allocated(void* p, std::size_t size) {
  const telling_scope scope;
  heddle::rt::forget_objects(reinterpret_cast<std::uintptr_t>(p), size);
  if (tsan::instrumented()) tsan::heap_allocated(reinterpret_cast<std::uintptr_t>(p), size);
}

void tell_freed(void* p, std::size_t size, std::uintptr_t pc) {
  const telling_scope scope;
  tsan::heap_freed(reinterpret_cast<std::uintptr_t>(p), size, pc);
}

void* allocated(void* p, std::uintptr_t pc) {
  if (p != nullptr && controlled_call(pc)) {
    tell_allocated(p, real()->usable_size(p));
  }
  return p;
}

void release(void* p, std::uintptr_t pc) {
  if (p == nullptr) return;
  if (own::owns(p)) {
    own::release(p);
    return;
  }
  // The fork server leaves the C library's heap as every child starts from it.
  if (own::serving_all) return;
  const allocator* a = real();
  if (a == nullptr) {
    __libc_free(p);
    return;
  }
  if (tracking(pc)) tell_freed(p, a->usable_size(p), pc);
  a->free(p);
}

void* heap_alloc(std::size_t n, std::uintptr_t pc) {
  if (own::active() || runtime_allocates(pc)) return own::allocate(n);
  const allocator* a = real();
  return allocated(a != nullptr ? a->malloc(n) : __libc_malloc(n), pc);
}

void* aligned_heap_alloc(std::size_t alignment, std::size_t n, std::uintptr_t pc) {
  if (own::active() || runtime_allocates(pc)) return own::allocate(n, alignment);
  const allocator* a = real();
  return allocated(a != nullptr ? a->aligned_alloc(alignment, n) : __libc_memalign(alignment, n), pc);
}

// libstdc++'s operator new: retry through the new-handler, else throw.
void* new_block(std::size_t n, std::uintptr_t pc) {
  if (n == 0) n = 1;
  for (;;) {
    if (void* p = heap_alloc(n, pc)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* new_aligned_block(std::size_t n, std::align_val_t al, std::uintptr_t pc) {
  const auto alignment = static_cast<std::size_t>(al);
  if (n == 0) n = 1;
  n = (n + alignment - 1) & ~(alignment - 1);  // aligned_alloc wants a multiple
  for (;;) {
    if (void* p = aligned_heap_alloc(alignment, n, pc)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* new_block_or_null(std::size_t n, std::uintptr_t pc) noexcept {
  try {
    return new_block(n, pc);
  } catch (...) {
    return nullptr;
  }
}

void* new_aligned_block_or_null(std::size_t n, std::align_val_t al, std::uintptr_t pc) noexcept {
  try {
    return new_aligned_block(n, al, pc);
  } catch (...) {
    return nullptr;
  }
}

void* reallocate(void* p, std::size_t n, std::uintptr_t pc) {
  if (own::owns(p)) return own::reallocate(p, n);
  const allocator* a = real();
  if (own::active() && a != nullptr) {
    // A block of the C library's heap moves to heddle's.
    void* q = own::allocate(n);
    if (q == nullptr || p == nullptr) return q;
    const std::size_t had = a->usable_size(p);
    std::memcpy(q, p, had < n ? had : n);
    release(p, pc);
    return q;
  }
  if (a == nullptr) return __libc_realloc(p, n);
  if (p == nullptr || !tracking(pc)) return allocated(a->realloc(p, n), pc);
  // The old block is read and freed, the new one is fresh; on failure the
  // old one stays as it was.
  const std::size_t old_size = a->usable_size(p);
  void* q = a->realloc(p, n);
  if (q == nullptr && n != 0) return nullptr;
  tell_freed(p, old_size, pc);
  return allocated(q, pc);
}

}  // namespace

HEDDLE_HOOK void* malloc(std::size_t n) noexcept { return heap_alloc(n, HEDDLE_CALLER_PC); }

HEDDLE_HOOK void free(void* p) noexcept { release(p, HEDDLE_CALLER_PC); }

HEDDLE_HOOK void* calloc(std::size_t count, std::size_t n) noexcept {
  if (own::active()) {
    std::size_t bytes = 0;
    if (__builtin_mul_overflow(count, n, &bytes)) return nullptr;
    void* p = own::allocate(bytes);
    if (p != nullptr) std::memset(p, 0, bytes);
    return p;
  }
  const allocator* a = real();
  return allocated(a != nullptr ? a->calloc(count, n) : __libc_calloc(count, n), HEDDLE_CALLER_PC);
}

HEDDLE_HOOK void* realloc(void* p, std::size_t n) noexcept { return reallocate(p, n, HEDDLE_CALLER_PC); }

HEDDLE_HOOK void* reallocarray(void* p, std::size_t count, std::size_t n) noexcept {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, n, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return reallocate(p, bytes, HEDDLE_CALLER_PC);
}

HEDDLE_HOOK void* aligned_alloc(std::size_t alignment, std::size_t n) noexcept {
  return aligned_heap_alloc(alignment, n, HEDDLE_CALLER_PC);
}

HEDDLE_HOOK int posix_memalign(void** out, std::size_t alignment, std::size_t n) noexcept {
  if (own::active()) {
    if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void* p = own::allocate(n, alignment);
    if (p == nullptr) return ENOMEM;
    *out = p;
    return 0;
  }
  const allocator* a = real();
  if (a == nullptr) {
    *out = __libc_memalign(alignment, n);
    return *out != nullptr ? 0 : ENOMEM;
  }
  const int status = a->posix_memalign(out, alignment, n);
  if (status == 0) allocated(*out, HEDDLE_CALLER_PC);
  return status;
}

HEDDLE_HOOK void* memalign(std::size_t alignment, std::size_t n) noexcept {
  if (own::active()) return own::allocate(n, alignment);
  const allocator* a = real();
  return allocated(a != nullptr ? a->memalign(alignment, n) : __libc_memalign(alignment, n), HEDDLE_CALLER_PC);
}

HEDDLE_HOOK void* valloc(std::size_t n) noexcept {
  if (own::active()) return own::allocate(n, 4096);
  const allocator* a = real();
  return allocated(a != nullptr ? a->valloc(n) : __libc_memalign(4096, n), HEDDLE_CALLER_PC);
}

HEDDLE_HOOK void* pvalloc(std::size_t n) noexcept {
  if (own::active()) return own::allocate((n + 4095) & ~std::size_t{4095}, 4096);
  const allocator* a = real();
  return allocated(a != nullptr ? a->pvalloc(n) : __libc_memalign(4096, (n + 4095) & ~std::size_t{4095}),
                   HEDDLE_CALLER_PC);
}

HEDDLE_HOOK std::size_t malloc_usable_size(void* p) noexcept {
  if (p == nullptr) return 0;
  if (own::owns(p)) return own::usable_size(p);
  const allocator* a = real();
  return a != nullptr ? a->usable_size(p) : 0;
}

HEDDLE_HOOK void* mmap(void* address, std::size_t length, int protection, int flags, int fd, off_t offset) noexcept {
  void* p = real()->mmap(address, length, protection, flags, fd, offset);
  if (p != MAP_FAILED && controlled_call(HEDDLE_CALLER_PC)) tell_allocated(p, length);
  return p;
}

HEDDLE_HOOK void* mmap64(void* address, std::size_t length, int protection, int flags, int fd, off_t offset) noexcept {
  return mmap(address, length, protection, flags, fd, offset);
}

HEDDLE_HOOK int munmap(void* address, std::size_t length) noexcept {
  const int status = real()->munmap(address, length);
  if (status == 0 && controlled_call(HEDDLE_CALLER_PC)) {
    const telling_scope scope;
    heddle::rt::forget_objects(reinterpret_cast<std::uintptr_t>(address), length);
    if (tsan::instrumented()) tsan::unmapped(reinterpret_cast<std::uintptr_t>(address), length);
  }
  return status;
}

// Every replaceable global operator new and delete ([new.delete]).
void* operator new(std::size_t n) { return new_block(n, HEDDLE_CALLER_PC); }
void* operator new[](std::size_t n) { return new_block(n, HEDDLE_CALLER_PC); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return new_block_or_null(n, HEDDLE_CALLER_PC); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return new_block_or_null(n, HEDDLE_CALLER_PC); }
void* operator new(std::size_t n, std::align_val_t al) { return new_aligned_block(n, al, HEDDLE_CALLER_PC); }
void* operator new[](std::size_t n, std::align_val_t al) { return new_aligned_block(n, al, HEDDLE_CALLER_PC); }
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return new_aligned_block_or_null(n, al, HEDDLE_CALLER_PC);
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return new_aligned_block_or_null(n, al, HEDDLE_CALLER_PC);
}

void operator delete(void* p) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete[](void* p) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete(void* p, std::size_t) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete[](void* p, std::size_t) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete(void* p, std::align_val_t) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p, HEDDLE_CALLER_PC); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p, HEDDLE_CALLER_PC); }
