// Statistics of a run (explore.hpp's heddle::statistics), built from one
// iteration_record per iteration wherever the iteration ran: in this process
// or in a worker, whose records reach the parent through shared memory.
//
// Contract: add() takes records in any order (workers finish out of order);
// the result depends only on the set of records, so a run split over workers
// or shards adds up to the same numbers (merge() unions the hash sets).
#pragma once

#include <cstdint>
#include <unordered_set>

#include "engine/engine.hpp"
#include "heddle/explore.hpp"

namespace heddle::detail {

// A hash of the decisions of an iteration (kind and value of every step):
// two iterations with the same hash took the same schedule.
std::uint64_t schedule_hash(const iteration_outcome& outcome);
std::uint64_t schedule_hash(const std::vector<trace_step>& steps);

iteration_record make_record(std::uint64_t index, const iteration_outcome& outcome);

class statistics_accumulator {
 public:
  statistics_accumulator();
  void add(const iteration_record& r);
  // The statistics so far, with the hash sets sorted.
  statistics finish(std::chrono::nanoseconds elapsed) const;
  std::uint64_t iterations() const noexcept { return stats_.iterations; }
  std::uint64_t buggy_iterations() const noexcept { return stats_.buggy_iterations; }

 private:
  statistics stats_;
  std::unordered_set<std::uint64_t> schedules_;
  std::unordered_set<std::uint64_t> end_states_;
  std::uint64_t schedules_over_ = 0;  // distinct values past kept_hashes (a lower bound)
  std::uint64_t end_states_over_ = 0;
};

// Adds `b` into `a`: counts add up, extremes combine, hash sets unite.
void merge(statistics& a, const statistics& b);

}  // namespace heddle::detail
