// See runtime_heap.hpp.
#include "rt/runtime_heap.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace heddle::rt::runtime_heap {

std::uintptr_t region_begin = 0;
std::uintptr_t region_end = 0;
bool serving_all = false;
int scope_depth = 0;

namespace {

// Above the shadow (0x1000'0000'0000-0x5000'0000'0000), below the mmap area.
constexpr std::uintptr_t region_address = 0x6000'0000'0000;
constexpr std::uintptr_t region_size = std::uintptr_t{64} << 30;
constexpr std::size_t header_size = 16;
constexpr std::size_t page = 4096;

// Size classes of whole blocks (header included): 16, 32, 48, 64, then four
// per doubling (80, 96, 112, 128, 160, ...) up to 256 KiB; larger blocks are
// whole 64 KiB units.
constexpr std::size_t largest_small = std::size_t{1} << 18;
constexpr std::size_t large_unit = std::size_t{64} << 10;
constexpr unsigned class_count = 4 + (18 - 6) * 4 + 1;

struct header {
  std::uintptr_t storage;  // where the block's storage starts
  std::size_t size;        // the storage's size: a class size, or a multiple of large_unit
};

struct free_block {
  free_block* next;
  std::size_t size;
};

unsigned class_of(std::size_t total, std::size_t& size) noexcept {
  if (total <= 64) {
    const unsigned c = static_cast<unsigned>((total + 15) >> 4);
    size = std::size_t{c} << 4;
    return c;
  }
  const unsigned b = 63u - static_cast<unsigned>(__builtin_clzll(total - 1));  // 2^b < total <= 2^(b+1)
  const std::size_t step = std::size_t{1} << (b - 2);
  const std::size_t k = (total - (std::size_t{1} << b) + step - 1) >> (b - 2);  // 1..4
  size = (std::size_t{1} << b) + k * step;
  return 4 + (b - 6) * 4 + static_cast<unsigned>(k);
}

std::atomic_flag lock = ATOMIC_FLAG_INIT;
std::uintptr_t cursor = 0;              // the region's unused part starts here
// In a forked child (forked()): below here the blocks are the fork server's,
// on pages the child shares with it until it writes them. 0 elsewhere.
std::uintptr_t inherited_end = 0;
free_block* small_free[class_count] = {};
free_block* large_free = nullptr;

class locked {
 public:
  locked() noexcept {
    while (lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~locked() { lock.clear(std::memory_order_release); }
  locked(const locked&) = delete;
  locked& operator=(const locked&) = delete;
};

void reserve() noexcept {
  if (region_end != 0) return;
  constexpr int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  long p = ::syscall(SYS_mmap, region_address, region_size, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE,
                     -1, 0);
  if (p < 0 || static_cast<std::uintptr_t>(p) != region_address)
    p = ::syscall(SYS_mmap, 0, region_size, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p < 0) return;  // no region: the C library's heap serves everything, as before
  cursor = static_cast<std::uintptr_t>(p);
  region_begin = cursor;
  region_end = cursor + region_size;
}

// Storage of `size` bytes (a class size, or large units), or 0.
std::uintptr_t take(unsigned cls, std::size_t size) noexcept {
  const locked guard;
  if (cls < class_count) {
    if (free_block* f = small_free[cls]; f != nullptr) {
      small_free[cls] = f->next;
      return reinterpret_cast<std::uintptr_t>(f);
    }
  } else {
    // First fit among freed large blocks not more than twice as large.
    for (free_block** link = &large_free; *link != nullptr; link = &(*link)->next) {
      free_block* f = *link;
      if (f->size >= size && f->size / 2 <= size) {
        *link = f->next;
        return reinterpret_cast<std::uintptr_t>(f);
      }
    }
  }
  if (region_end - cursor < size) return 0;
  const std::uintptr_t storage = cursor;
  cursor += size;
  return storage;
}

void give_back(std::uintptr_t storage, std::size_t size) noexcept {
  // A block of the fork server's, freed in a child: left as it is. Linking
  // it into a free list would write its page (a copy-on-write fault, with a
  // TLB flush) for memory the child's exit gives back anyway.
  if (storage < inherited_end) return;
  auto* f = reinterpret_cast<free_block*>(storage);
  f->size = size;
  if (size <= largest_small) {
    std::size_t ignored = 0;
    const unsigned cls = class_of(size, ignored);
    const locked guard;
    f->next = small_free[cls];
    small_free[cls] = f;
    return;
  }
  // Its pages but the first (the list's link) go back to the kernel.
  ::madvise(reinterpret_cast<void*>(storage + page), size - page, MADV_DONTNEED);
  const locked guard;
  f->next = large_free;
  large_free = f;
}

header* header_of(const void* p) noexcept {
  return reinterpret_cast<header*>(reinterpret_cast<std::uintptr_t>(p) - header_size);
}

}  // namespace

void enter_server() noexcept {
  reserve();
  serving_all = region_end != 0;
}

void leave_server() noexcept { serving_all = false; }

void forked() noexcept {
  serving_all = false;
  if (region_end == 0) return;
  // The child allocates from pages the fork server never touched: a first
  // write there is a zero-fill fault, where the free blocks it inherited lie
  // on pages it shares with the fork server, each first write to one a
  // copy-on-write fault (a page copied and the TLB flushed, several times
  // the cost on a VM). The fork server's cursor page may be shared too.
  cursor = (cursor + page - 1) & ~(page - 1);
  inherited_end = cursor;
  for (free_block*& f : small_free) f = nullptr;
  large_free = nullptr;
}

void* allocate(std::size_t size, std::size_t alignment) noexcept {
  if (region_end == 0) reserve();
  if (alignment <= header_size) alignment = 0;
  std::size_t total = 0;
  if (__builtin_add_overflow(size, header_size + alignment, &total)) return nullptr;
  std::size_t storage_size = 0;
  unsigned cls = class_count;
  if (total <= largest_small) {
    cls = class_of(total, storage_size);
  } else {
    if (total > region_size) return nullptr;
    storage_size = (total + large_unit - 1) / large_unit * large_unit;
  }
  const std::uintptr_t storage = take(cls, storage_size);
  if (storage == 0) return nullptr;
  std::uintptr_t p = storage + header_size;
  if (alignment != 0) p = (p + alignment - 1) & ~(alignment - 1);
  header* h = header_of(reinterpret_cast<void*>(p));
  h->storage = storage;
  h->size = storage_size;
  return reinterpret_cast<void*>(p);
}

std::size_t usable_size(const void* p) noexcept {
  const header* h = header_of(p);
  return h->storage + h->size - reinterpret_cast<std::uintptr_t>(p);
}

void release(void* p) noexcept {
  const header* h = header_of(p);
  give_back(h->storage, h->size);
}

void* reallocate(void* p, std::size_t size) noexcept {
  if (p == nullptr) return allocate(size);
  const std::size_t had = usable_size(p);
  if (size <= had && size >= had / 2) return p;
  void* q = allocate(size);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, had < size ? had : size);
  release(p);
  return q;
}

}  // namespace heddle::rt::runtime_heap
