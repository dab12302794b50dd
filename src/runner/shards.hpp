// Which iteration indices a run owns. Iteration i keeps the seed derived from
// (seed, i) wherever it runs, so a run split over shards (machines) and
// workers (processes) runs exactly the iterations of the unsplit run.
//
// Contract: shard I of N owns the indices i < iterations with i % N == I; its
// k-th index ("slot" k) is I + k * N. Workers claim slots, not indices.
#pragma once

#include <cstdint>

#include "heddle/options.hpp"

namespace heddle::detail {

inline std::uint64_t shard_slots(const options& o) {
  return o.iterations > o.shard_index ? (o.iterations - o.shard_index + o.shard_count - 1) / o.shard_count : 0;
}

inline std::uint64_t shard_index_of_slot(const options& o, std::uint64_t slot) {
  return o.shard_index + slot * o.shard_count;
}

}  // namespace heddle::detail
