// The heap heddle's own code allocates from where its allocations would
// otherwise move the program's blocks: a private region, apart from the C
// library's heap, which the program keeps to itself.
//
// Why: the fork server forks every iteration's child from one process, and a
// replay is a new process. If the fork server allocated from the C library's
// main heap (its strategy's state, the steps of each iteration, the trace a
// replay reads), the heap a child starts from would differ from one iteration
// to the next and between a run and its replay, and so would the addresses of
// the blocks the program's main allocates: a program that hashes or orders by
// them (a hash table keyed by pointer, locks taken in address order) would
// take other steps, and its replay would diverge. So:
//
// - in the fork server process, from the takeover at main (run_program) on,
//   every allocation is served here (enter_server); the C library's heap then
//   stays as the program's startup left it, and every child starts from it;
//   blocks of that heap the fork server frees are not given back to it (they
//   are few, allocated before main), so that it does not change either;
// - everywhere, what libheddle-rt's own code allocates (heap_hooks.cpp knows
//   its callers' addresses): in a child, heddle's engine then does not move
//   the program's blocks either, on whichever backend;
// - in a child, also what heddle's strategy allocates while it decides (a
//   scope, see fork_child.cpp), through libstdc++'s compiled code included:
//   its state is the fork server's, which depends on every earlier iteration.
// The program's own allocations in a child are the C library's, as without
// heddle.
//
// The region is reserved once (NORESERVE, at a fixed address outside the
// windows the shadow covers and the program's usual places) and never given
// back; freed small blocks go to a free list per size class, freed large ones
// to a list the next large allocation searches (their pages given back to the
// kernel). In a forked child the heap serves from pages the fork server never
// touched and leaves the blocks it inherited alone, even freed (forked): a
// child's first write to a page it shares with the fork server is a
// copy-on-write fault, which flushes the TLB. A block holds a 16-byte header before it: the start of its storage
// and the storage's size. The free of a block is found to be ours by its
// address alone, so a block crosses freely between the modes.
#pragma once

#include <cstddef>
#include <cstdint>

#pragma GCC visibility push(hidden)
namespace heddle::rt::runtime_heap {

// [region_begin, region_end): 0, 0 until the region is reserved.
extern std::uintptr_t region_begin;
extern std::uintptr_t region_end;
// Serve every allocation of this process here (the fork server).
extern bool serving_all;
// Serve the allocations of heddle's code running now (a scope's depth).
extern int scope_depth;

inline bool owns(const void* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) - region_begin < region_end - region_begin;
}
inline bool active() noexcept { return serving_all || scope_depth != 0; }

// The fork server's process, from the takeover on / a child, from its fork on.
void enter_server() noexcept;
void leave_server() noexcept;
// A forked child of the fork server, first thing: leave_server, and serve
// the child's allocations from pages the fork server never wrote (free blocks
// inherited from it are neither reused nor linked when freed).
void forked() noexcept;

// As malloc, aligned_alloc (alignment 0: 16), realloc, free and
// malloc_usable_size, for blocks of this heap. Null when out of memory.
void* allocate(std::size_t size, std::size_t alignment = 0) noexcept;
void* reallocate(void* p, std::size_t size) noexcept;
void release(void* p) noexcept;
std::size_t usable_size(const void* p) noexcept;

// heddle's code that runs in a child on state it inherited from the fork server.
class scope {
 public:
  scope() noexcept { ++scope_depth; }
  ~scope() { --scope_depth; }
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;
};

}  // namespace heddle::rt::runtime_heap
#pragma GCC visibility pop
