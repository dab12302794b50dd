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
// Memory is tracked in 8-byte granules. A granule keeps the accesses no later
// access has made redundant: an access that happens before a new one and is
// covered by it (same or fewer bytes, and the new one writes or the old one
// reads) can only race with what the new one races with, so it is dropped.
// What remains are exactly the accesses that may still race, which makes the
// check precise for the accesses it sees (no false reports) while bounding the
// records by the number of unordered operations.
//
// The heap (rt/heap_hooks.cpp): an allocation starts a fresh history for its
// bytes (memory the C library hands out again is a new object, not the old
// one's), and a free is a write of the whole block, which races with every
// access not ordered before it. The freed range is then remembered, with who
// freed it, until it is allocated again: an access there is a use after free,
// and also a race if the free is not ordered before it.
//
// Contract: only the running operation calls in, and only under control; the
// state belongs to one iteration and is dropped when the next one starts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "heddle/model.hpp"

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

class race_detector final : public detail::hb_listener {
 public:
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
  // Marks the granule as touched by the running operation. The memory policy
  // "shared" makes a point of exactly these accesses.
  bool touch_is_shared(std::uintptr_t address);

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

  // Operations' clocks, for tests and the benchmark.
  const vector_clock& clock_of(operation_id op);

 private:
  struct access_record {
    operation_id operation;
    std::uint32_t clock;  // the operation's own component when it accessed
    std::uint8_t offset;  // first byte within the granule
    std::uint8_t size;    // bytes within the granule
    bool write;
    bool atomic;
    std::uintptr_t address;  // of the whole access, for the report
    std::uint32_t full_size;
    std::uintptr_t pc;
    bool free = false;
  };
  struct freed_block {
    std::uintptr_t end;  // the range is [key, end)
    operation_id operation;
    std::uint32_t clock;
    std::uintptr_t address;  // the whole block, for the report
    std::uintptr_t size;
    std::uintptr_t pc;
  };
  struct granule {
    operation_id first_toucher = 0;
    bool shared = false;
    std::vector<access_record> accesses;
  };
  struct sync_clocks {
    vector_clock exclusive;
    vector_clock shared;
  };

  void begin_iteration_if_new();
  vector_clock& own_clock();
  vector_clock& clock(operation_id op);
  static void join_into(vector_clock& into, const vector_clock& from);
  std::optional<race> check_granule(granule& g, const access_record& access);
  std::optional<race> check_freed(std::uintptr_t address, std::uint32_t size, bool write, std::uintptr_t pc,
                                  bool atomic);
  // Calls f(key, granule) for every recorded granule of [address, address + size).
  template <class F>
  void for_granules_in(std::uintptr_t address, std::uintptr_t size, F f);
  void erase_freed(std::uintptr_t begin, std::uintptr_t end);
  void reset_range(std::uintptr_t address, std::uintptr_t size);

  std::uint32_t epoch_ = 0;  // the iteration the state belongs to
  std::vector<vector_clock> clocks_;      // index = operation id
  std::vector<sync_clocks> sync_;         // index = object id
  // Per operation (index = operation id): its clock at its last release
  // fence, and what its relaxed loads read since its last acquire fence.
  std::vector<vector_clock> fence_released_;
  std::vector<vector_clock> fence_pending_;
  vector_clock seq_cst_fences_;
  std::unordered_map<std::uintptr_t, granule> granules_;  // key = address / 8
  std::map<std::uintptr_t, freed_block> freed_;  // key = first byte; disjoint ranges
  // Set while the detector changes its maps: the C library's allocator, which
  // they call, is hooked too, and must not reach them then (it is heddle's
  // own memory, which instrumented code never touches).
  bool busy_ = false;
};

// The one detector of the process; installed as detail::hb by __tsan_init.
race_detector& the_race_detector();

}  // namespace heddle::rt
