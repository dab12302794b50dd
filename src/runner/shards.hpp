// Which iteration indices a run owns. Iteration i keeps the seed derived from
// (seed, i) wherever it runs, and a strategy learns only within its learning
// window (strategy::learning_window), so a run split over shards (machines)
// and workers (processes) runs exactly the iterations of the unsplit run.
//
// Contract: the indices below `iterations` fall into blocks of `window`
// consecutive indices (block b = [b*window, (b+1)*window)); shard I of N owns
// the blocks b with b % N == I, in order, and its k-th index is its "slot" k.
// So a shard's slots come in runs of `window` consecutive indices: a block
// starts at every slot that is a multiple of `window`, and workers claim whole
// blocks. Window 1 gives shard I the indices i with i % N == I; window 0 (one
// window over the whole run) gives shard 0 every index and the others none.
#pragma once

#include <algorithm>
#include <cstdint>

#include "heddle/options.hpp"

namespace heddle::detail {

inline std::uint64_t block_size(const options& o, std::uint64_t window) {
  return window == 0 ? std::max<std::uint64_t>(o.iterations, 1) : window;
}

inline std::uint64_t shard_slots(const options& o, std::uint64_t window) {
  const std::uint64_t w = block_size(o, window);
  const std::uint64_t blocks = (o.iterations + w - 1) / w;
  if (o.shard_index >= blocks) return 0;
  const std::uint64_t mine = (blocks - 1 - o.shard_index) / o.shard_count + 1;
  const std::uint64_t last = o.shard_index + (mine - 1) * o.shard_count;
  const std::uint64_t last_size = last == blocks - 1 ? o.iterations - last * w : w;
  return (mine - 1) * w + last_size;
}

inline std::uint64_t shard_index_of_slot(const options& o, std::uint64_t window, std::uint64_t slot) {
  const std::uint64_t w = block_size(o, window);
  return (o.shard_index + slot / w * o.shard_count) * w + slot % w;
}

// The slot of an index this shard owns.
inline std::uint64_t shard_slot_of_index(const options& o, std::uint64_t window, std::uint64_t index) {
  const std::uint64_t w = block_size(o, window);
  return (index / w - o.shard_index) / o.shard_count * w + index % w;
}

}  // namespace heddle::detail
