// Statistics of a run (explore.hpp's heddle::statistics), built from one
// iteration_record per iteration wherever the iteration ran: in this process
// or in a worker, whose records reach the parent through shared memory.
//
// Contract: add() takes records in any order (workers finish out of order);
// the result depends only on the set of records, so a run split over workers
// or shards adds up to the same numbers (merge() unions the hash sets).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/engine.hpp"
#include "heddle/explore.hpp"

namespace heddle::detail {

// A hash of the decisions of an iteration (kind and value of every step):
// two iterations with the same hash took the same schedule.
std::uint64_t schedule_hash(const iteration_outcome& outcome);
std::uint64_t schedule_hash(const std::vector<trace_step>& steps);

// `ran`: the engine that ran it, which still knows the objects its decisions
// touched (atomic_steps, memory_steps).
iteration_record make_record(std::uint64_t index, const iteration_outcome& outcome, engine* ran = nullptr);

// A set of 64-bit hashes: open addressing with linear probing in one flat
// table. An insert is one probe into memory the set owns, where
// std::unordered_set allocated a node per new value and chased pointers, which
// cost more than an iteration of a small test (docs/performance.md).
class hash_set {
 public:
  // True when `value` was not in the set.
  bool insert(std::uint64_t value);
  bool contains(std::uint64_t value) const noexcept;
  // Asks the CPU to bring `value`'s slot into the cache, ahead of an insert or
  // a lookup that comes later (a large table misses the cache on every value).
  void prefetch(std::uint64_t value) const noexcept;
  std::size_t size() const noexcept { return size_ + (has_zero_ ? 1 : 0); }
  std::vector<std::uint64_t> sorted() const;

 private:
  void grow();
  std::vector<std::uint64_t> slots_;  // 0: empty; the value 0 is has_zero_
  std::size_t size_ = 0;              // non-zero values in slots_
  bool has_zero_ = false;
};

// How many different 64-bit hashes were seen: exact up to `exact_limit`
// values, kept in a hash_set (256 KiB at most), and estimated past that with
// HyperLogLog (Flajolet, Fusy, Gandouet and Meunier, 2007: 4,096 one-byte
// registers, about 1.6% standard error), so that a long run's memory stays
// flat however many schedules it sees.
class distinct_counter {
 public:
  static constexpr std::size_t exact_limit = 16'000;
  void insert(std::uint64_t value);
  void prefetch(std::uint64_t value) const noexcept { exact_.prefetch(value); }
  std::uint64_t count() const;
  bool exact() const noexcept { return !overflowed_; }
  // The values kept exactly (all of them while exact()), sorted.
  std::vector<std::uint64_t> kept() const { return exact_.sorted(); }

 private:
  hash_set exact_;
  bool overflowed_ = false;
  std::array<std::uint8_t, 4096> registers_{};
};

class statistics_accumulator {
 public:
  statistics_accumulator();
  void add(const iteration_record& r);
  // The statistics so far, with the hash sets sorted.
  statistics finish(std::chrono::nanoseconds elapsed);
  std::uint64_t iterations() const noexcept { return stats_.iterations; }
  std::uint64_t buggy_iterations() const noexcept { return stats_.buggy_iterations; }

 private:
  // The records' hashes go into the sets in batches: the slots of a whole
  // batch are prefetched first, so their cache misses overlap instead of
  // costing one full miss per iteration once the sets outgrow the cache.
  void keep_pending();
  static constexpr std::size_t batch = 64;
  struct pending_hashes {
    std::uint64_t schedule;
    std::uint64_t end_state;
    bool has_end_state;
  };
  std::vector<pending_hashes> pending_;
  statistics stats_;
  distinct_counter schedules_;
  distinct_counter end_states_;
};

// Adds `b` into `a`: counts add up, extremes combine, hash sets unite.
void merge(statistics& a, const statistics& b);

}  // namespace heddle::detail
