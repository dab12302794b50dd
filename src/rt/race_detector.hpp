// The happens-before race detector of libheddle-rt (DESIGN.md section 11).
//
// Vector clocks in the style of DJIT+, with FastTrack's observation that an
// access only needs its operation's own clock component (an epoch) to be
// compared later. Each operation has a vector clock; each object a model
// synchronizes on has two (what exclusive releases published, what shared
// releases did, so readers of a reader-writer lock stay unordered among
// themselves). The models' hb_* hooks (heddle/model.hpp) move clocks along
// create/join, locks, semaphores, latches, barriers, futures, once and
// atomics with acquire/release orders.
//
// Fences (C++ [atomics.fences]): each operation keeps the clock it had at its
// last release fence, which its relaxed stores and read-modify-writes publish
// on the atomic as a release would; and what its relaxed loads read (the
// atomics' published clocks), which its next acquire fence joins into its
// clock. A seq_cst fence is both, and also joins and publishes one clock all
// seq_cst fences share (they are totally ordered).
//
// Atomic accesses are recorded like plain ones, marked atomic: an atomic and a
// plain access to the same bytes race unless ordered (a plain access to an
// atomic object is undefined behaviour); two atomic accesses never race.
//
// Memory is tracked in 8-byte granules, in a shadow memory in the style of
// ThreadSanitizer's: each granule of application memory has one 64-byte
// shadow granule (a cache line) at an address computed from its own, with no
// hashing and no allocation on the way (rt/shadow_memory.hpp). A shadow
// granule holds the operation that touched it first (the memory policy
// "shared" makes a point of the accesses of any other) and three access
// cells: operation, its clock component then (a FastTrack epoch), bytes,
// read or write, atomic or plain, and the pc for the report. An access that
// happens before a new one and is covered by it (same or fewer bytes, and the
// new one writes or the old one reads) can only race with what the new one
// races with, so the new one takes its cell; with three unordered accesses
// recorded, a fourth replaces one of them in turn, so a race may be missed,
// never invented. An operation re-touching its own memory with nothing
// between (same operation and epoch, covered) finds its own cell and stops.
//
// Each shadow granule carries the generation of the detector that wrote it;
// another generation reads as empty. A new iteration (in-process, or a fork
// server's child, whose shadow is a copy-on-write image of its parent's) is a
// new generation, so a reset costs nothing and what the parent wrote before
// forking is never seen.
//
// The heap (rt/heap_hooks.cpp): an allocation starts a fresh history for its
// bytes (memory the C library hands out again is a new object, not the old
// one's), and a free is a write of the whole block, which races with every
// access not ordered before it. The free then stays in the shadow, as each
// granule's only cell, until the memory is allocated again: an access there
// is a use after free, and a race with the free if the free is not ordered
// before it. (A block of more than free_checked_bytes is forgotten instead:
// checking and marking it would cost more than the program's free.)
//
// Contract: only the running operation calls in, and only under control; the
// state belongs to one iteration and is dropped when the next one starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heddle/model.hpp"
#include "rt/shadow_memory.hpp"

// Internal to libheddle-rt: hidden, so its calls need no PLT.
#pragma GCC visibility push(hidden)
namespace heddle::rt {

using vector_clock = std::vector<std::uint32_t>;  // index = operation id

// One side of a race, as the report names it.
struct access_site {
  operation_id operation = 0;
  bool write = false;
  bool atomic = false;
  bool free = false;  // the free of the block at `address`, `size` bytes
  std::uintptr_t address = 0;
  std::uint32_t size = 0;
  std::uintptr_t pc = 0;
};

struct race {
  access_site earlier;  // the recorded access
  access_site later;    // the access being made
  // `earlier` is a free ordered before `later`: a use after free, not a race.
  bool after_free = false;
};

// A granule's shadow: one cache line. A cell's `bits`: the pc (bits 0-47),
// the first byte within the granule (3 bits), bytes - 1 (3 bits), write,
// atomic, free, and "used".
struct shadow_granule {
  struct cell {
    std::uint64_t bits;
    std::uint32_t operation;
    std::uint32_t clock;
  };
  std::uint32_t generation;  // the detector's generation that wrote it; any other reads as empty
  std::uint32_t toucher;     // the first operation to touch it, | shared_bit once another does
  std::uint64_t unused;
  cell cells[3];

  static constexpr std::uint64_t pc_mask = (std::uint64_t{1} << 48) - 1;
  static constexpr unsigned offset_shift = 48;
  static constexpr unsigned size_shift = 51;
  static constexpr std::uint64_t write_bit = std::uint64_t{1} << 54;
  static constexpr std::uint64_t atomic_bit = std::uint64_t{1} << 55;
  static constexpr std::uint64_t free_bit = std::uint64_t{1} << 56;
  static constexpr std::uint64_t used_bit = std::uint64_t{1} << 57;
  static constexpr std::uint32_t shared_bit = 0x8000'0000U;

  static constexpr std::uint64_t describe(std::uint32_t offset, std::uint32_t size, bool write, bool atomic) {
    return (std::uint64_t{offset} << offset_shift) | (std::uint64_t{size - 1} << size_shift) |
           (write ? write_bit : 0) | (atomic ? atomic_bit : 0) | used_bit;
  }
};
static_assert(sizeof(shadow_granule) == shadow::shadow_bytes);

class race_detector final : public detail::hb_listener {
 public:
  // Whether repeats() may answer, set by the hooks' slow path from the
  // iteration's options: only with the detector on (it alone records
  // cells), never under --memory all (every access is a point), and under
  // "shared" only for memory no other operation touched. A cell repeats()
  // can find was recorded by that slow path in this iteration, after it set
  // this, so the setting is always the iteration's own.
  enum class fast_path : std::uint8_t { off, any, unshared };
  void set_fast_path(fast_path mode) noexcept { fast_path_ = mode; }

  // The fast path, inline in the hook: is this plain access one the running
  // operation already made in its current epoch (a cell of its own with the
  // same bytes, and a write if this is one), in a granule no other operation
  // touched if the memory policy is "shared"? Then there is nothing to
  // check, record or make a point of.
  bool repeats(std::uintptr_t address, std::uint32_t size, bool write) const noexcept {
    const operation_id me = detail::control.running;
    if (fast_path_ == fast_path::off || epoch_ != detail::control.epoch || me >= clocks_.size()) return false;
    const bool unshared = fast_path_ == fast_path::unshared;
    const vector_clock& mine = clocks_[me];
    const std::uint32_t offset = static_cast<std::uint32_t>(address % shadow::granule_bytes);
    if (me >= mine.size() || offset + size > shadow::granule_bytes) return false;
    const auto* g = static_cast<const shadow_granule*>(shadow::of(address));
    if (g == nullptr || g->generation != generation_ || (unshared && g->toucher != me)) return false;
    const std::uint32_t now = mine[me];
    const std::uint64_t kind = shadow_granule::describe(offset, size, write, false);
    for (const shadow_granule::cell& c : g->cells) {
      if (c.operation == me && c.clock == now &&
          ((c.bits ^ kind) & ~(shadow_granule::pc_mask | shadow_granule::write_bit)) == 0 &&
          ((c.bits & shadow_granule::write_bit) != 0 || !write))
        return true;
    }
    return false;
  }

  // The access the running operation is about to make (plain, or atomic);
  // returns the first race it has with a recorded access, after recording it.
  std::optional<race> on_access(std::uintptr_t address, std::uint32_t size, bool write, std::uintptr_t pc,
                                bool atomic = false);

  // Memory [address, address + size) is a new object (malloc, mmap): it has
  // no history, and no operation has touched it yet.
  void allocated(std::uintptr_t address, std::uintptr_t size);
  // The running operation frees [address, address + size): a write of every
  // byte, checked as such; the range is then freed until allocated again.
  std::optional<race> freed(std::uintptr_t address, std::uintptr_t size, std::uintptr_t pc);
  // munmap: the range's history ends, with no access and nothing remembered
  // (an access there faults).
  void forget(std::uintptr_t address, std::uintptr_t size);

  // Did another operation than the running one touch this granule before?
  // Marks the granule as touched by the running operation, and as shared if
  // `reachable` (a global while another operation is alive: the policy counts
  // it as shared from the first touch, and so must the fast path). The memory
  // policy "shared" makes a point of exactly these accesses.
  bool touch_is_shared(std::uintptr_t address, bool reachable = false);

  void acquire(object_id object, bool shared) override;
  void release(object_id object, bool shared) override;
  void spawned(operation_id child) override;
  void joined(operation_id child) override;

  // A relaxed load of the atomic `object`: what it published becomes the
  // running operation's at its next acquire fence.
  void acquire_at_next_fence(object_id object);
  // A relaxed store or read-modify-write of `object`: publishes the running
  // operation's clock as of its last release fence.
  void release_from_last_fence(object_id object);
  // atomic_thread_fence with an acquire part, a release part, and seq_cst.
  void fence(bool acquires, bool releases, bool seq_cst);

  // Under --memory-model rc11 an atomic synchronizes through the store a load
  // read, not through the atomic as a whole (rt/weak_atomics.cpp): each store
  // of the atomic `object` (index `store` in its creation order, 0 its initial
  // value, which carries nothing) keeps a message, which is what its storer
  // published: its clock for a release store, its clock at its last release
  // fence otherwise, joined with the message of its own last release store to
  // the object (RC11's release sequence) and, for a read-modify-write, with
  // the message of the store it read (`read`). read_store joins a message
  // into the running operation's clock (acquire) or keeps it for its next
  // acquire fence (relaxed). These replace acquire()/release() on the atomic.
  void read_store(object_id object, std::uint32_t store, bool acquires);
  void made_store(object_id object, std::uint32_t store, bool releases, std::optional<std::uint32_t> read);

  // Operations' clocks, for tests and the benchmark.
  const vector_clock& clock_of(operation_id op);

  // A fork server's child: whatever the parent recorded is not its own.
  void forked() noexcept { epoch_ = ~0U; }

 private:
  struct sync_clocks {
    vector_clock exclusive;
    vector_clock shared;
  };
  void begin_iteration_if_new();
  vector_clock& own_clock();
  vector_clock& clock(operation_id op);
  static void join_into(vector_clock& into, const vector_clock& from);
  shadow_granule* granule_of(std::uintptr_t address);
  std::optional<race> check(shadow_granule& g, std::uintptr_t base, const access_site& access,
                            std::uint32_t offset, std::uint32_t size);
  void reset_range(std::uintptr_t address, std::uintptr_t size);

  std::uint32_t epoch_ = 0;       // the iteration the state belongs to
  std::uint32_t generation_ = 1;  // stamps the shadow granules this iteration writes
  std::uint32_t evictions_ = 0;   // picks the cell a full granule gives up
  fast_path fast_path_ = fast_path::off;
  std::vector<vector_clock> clocks_;      // index = operation id
  std::vector<sync_clocks> sync_;         // index = object id
  // Per operation (index = operation id): its clock at its last release
  // fence, and what its relaxed loads read since its last acquire fence.
  std::vector<vector_clock> fence_released_;
  std::vector<vector_clock> fence_pending_;
  vector_clock seq_cst_fences_;
  // rc11 (read_store, made_store). messages_: index = object id, then store
  // index. release_sequences_: index = operation id, then object id: the
  // message of the operation's last release store to it (empty: none).
  std::vector<std::vector<vector_clock>> messages_;
  std::vector<std::vector<vector_clock>> release_sequences_;
};

// The one detector of the process; installed as detail::hb by __tsan_init,
// which makes it (and reserves the shadow) before any hook can act, so the
// hooks' fast path reads `the_detector` directly.
race_detector& the_race_detector();
extern race_detector* the_detector;

}  // namespace heddle::rt
#pragma GCC visibility pop
