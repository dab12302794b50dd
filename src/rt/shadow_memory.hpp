// Where the race detector's shadow of an application address lives: a fixed
// arithmetic mapping, no table lookups beyond one 64-entry array, reserved
// once per process (rt/race_detector.hpp says what a shadow granule holds).
//
// On x86-64 Linux a user address has 47 bits. The program's memory lies in
// three places: the low range (a non-PIE executable, low mappings), the PIE
// executable with the brk heap after it (0x55..-0x57..), and the mmap area
// with shared libraries, mappings and thread stacks (0x7e..-0x7f..). The
// address space is cut into 64 windows of 2 TiB (bits 41-46). Each of the four
// windows where memory lives (0x0000.., 0x54/0x55.., 0x56/0x57.., 0x7e/0x7f..)
// gets 16 TiB of shadow, 64 bytes per 8-byte granule, laid out one after the
// other from 0x1000'0000'0000 to 0x5000'0000'0000, a range nothing else uses:
//
//   shadow(x) = window_shadow[x >> 41] + (x & (2 TiB - 1)) / 8 * 64
//
// The 64 TiB are reserved with MAP_NORESERVE: only the pages a run touches
// cost memory (a touched 4 KiB page of the program costs at most 32 KiB of
// shadow), and a fork server's children share the parent's copy-on-write.
// An address in another window has no shadow (null): it is not checked. If
// the reservation fails (an address-space limit), nothing is, and the first
// use says so once on stderr.
#pragma once

#include <cstddef>
#include <cstdint>

// Internal to libheddle-rt: hidden, so its calls need no PLT.
#pragma GCC visibility push(hidden)
namespace heddle::rt::shadow {

inline constexpr std::uintptr_t granule_bytes = 8;
inline constexpr std::uintptr_t shadow_bytes = 64;  // per granule
inline constexpr unsigned window_bits = 41;
inline constexpr std::uintptr_t window_mask = (std::uintptr_t{1} << window_bits) - 1;

// Index = window (address >> 41); the start of its shadow, or 0 for none.
extern std::uintptr_t window_shadow[64];

// Reserves the shadow (idempotent); false if it could not.
bool reserve() noexcept;

// The shadow of the granule holding `address`, or null.
inline void* of(std::uintptr_t address) noexcept {
  if ((address >> 47) != 0) return nullptr;
  const std::uintptr_t base = window_shadow[address >> window_bits];
  if (base == 0) return nullptr;
  return reinterpret_cast<void*>(base + (address & window_mask) / granule_bytes * shadow_bytes);
}

// Which 512-byte regions of application memory (one 4 KiB page of shadow)
// had shadow written since the process started: one byte each, set with the
// first write of a granule in a generation. A reset of memory whose region
// has none (a buffer the C library allocates and instrumented code never
// touches) skips it without touching its shadow page: each first touch of
// one is a page fault, in every fork server child. Null if it could not be
// reserved (then every region counts as written).
inline constexpr unsigned region_bits = 9;  // 512 bytes of application memory
extern std::uint8_t* written_regions;
inline std::uint8_t* region_flag(std::uintptr_t address) noexcept {
  if (written_regions == nullptr) return nullptr;
  const std::uintptr_t window = address >> window_bits;
  const std::uintptr_t base = window_shadow[window];
  if (base == 0) return nullptr;
  return written_regions + ((base - window_shadow[0]) / shadow_bytes * granule_bytes +
                            (address & window_mask)) / (std::uintptr_t{1} << region_bits);
}
inline bool region_written(std::uintptr_t address) noexcept {
  const std::uint8_t* flag = region_flag(address);
  return flag == nullptr || *flag != 0;
}

// Zeroes the shadow of [address, address + size) that lies on whole pages
// (the kernel drops them); returns the part it did not cover at either end
// through `head_end` and `tail_begin` (application addresses).
void discard(std::uintptr_t address, std::uintptr_t size, std::uintptr_t& head_end,
             std::uintptr_t& tail_begin) noexcept;

}  // namespace heddle::rt::shadow
#pragma GCC visibility pop
