// The shadow reservation and page discards; see shadow_memory.hpp.
#include "rt/shadow_memory.hpp"

#include <sys/mman.h>

#include <cstdio>
#include <iterator>

namespace heddle::rt::shadow {

std::uintptr_t window_shadow[64] = {};
std::uint8_t* written_regions = nullptr;

namespace {
constexpr std::uintptr_t shadow_start = 0x1000'0000'0000;
constexpr std::uintptr_t window_shadow_bytes = (window_mask + 1) / granule_bytes * shadow_bytes;  // 16 TiB
constexpr unsigned shadowed_windows[] = {0x00, 0x2a, 0x2b, 0x3f};
constexpr std::uintptr_t page = 4096;
bool tried = false;
}  // namespace

bool reserve() noexcept {
  if (tried) return window_shadow[0] != 0;
  tried = true;
  const std::uintptr_t length = window_shadow_bytes * std::size(shadowed_windows);
  void* p = ::mmap(reinterpret_cast<void*>(shadow_start), length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != reinterpret_cast<void*>(shadow_start)) {
    if (p != MAP_FAILED) ::munmap(p, length);  // a kernel without MAP_FIXED_NOREPLACE placed it elsewhere
    std::fprintf(stderr,
                 "heddle: cannot reserve the race detector's shadow memory (64 TiB of address space at %#lx): "
                 "memory accesses are not checked\n",
                 static_cast<unsigned long>(shadow_start));
    return false;
  }
  for (std::size_t i = 0; i < std::size(shadowed_windows); ++i)
    window_shadow[shadowed_windows[i]] = shadow_start + i * window_shadow_bytes;
  // One byte per region of the shadowed windows' application memory.
  const std::size_t regions = std::size(shadowed_windows) * ((window_mask + 1) >> region_bits);
  void* flags = ::mmap(nullptr, regions, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (flags != MAP_FAILED) written_regions = static_cast<std::uint8_t*>(flags);
  return true;
}

void discard(std::uintptr_t address, std::uintptr_t size, std::uintptr_t& head_end,
             std::uintptr_t& tail_begin) noexcept {
  const std::uintptr_t end = address + size;
  head_end = tail_begin = end;
  // Only within one window, where the shadow is contiguous.
  if (size == 0 || (address >> window_bits) != ((end - 1) >> window_bits) || of(address) == nullptr) return;
  const auto first = reinterpret_cast<std::uintptr_t>(of(address));
  const std::uintptr_t last = first + (end - address + granule_bytes - 1) / granule_bytes * shadow_bytes;
  const std::uintptr_t page_begin = (first + page - 1) & ~(page - 1);
  const std::uintptr_t page_end = last & ~(page - 1);
  if (page_end <= page_begin) return;
  if (::madvise(reinterpret_cast<void*>(page_begin), page_end - page_begin, MADV_DONTNEED) != 0) return;
  // Back to application addresses: shadow_bytes of shadow per granule.
  head_end = address / granule_bytes * granule_bytes + (page_begin - first) / shadow_bytes * granule_bytes;
  tail_begin = address / granule_bytes * granule_bytes + (page_end - first) / shadow_bytes * granule_bytes;
}

}  // namespace heddle::rt::shadow
