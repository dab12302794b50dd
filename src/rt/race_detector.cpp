// Vector clocks, sync edges and the per-granule access check of the race
// detector; see race_detector.hpp for the algorithm and its contract, and
// shadow_memory.hpp for where a granule's shadow lives.
#include "rt/race_detector.hpp"

#include <pthread.h>

#include <algorithm>

#include "rt/shadow_memory.hpp"

namespace heddle::rt {

namespace {
using shadow::granule_bytes;

std::uint32_t clamp32(std::uintptr_t n) { return n > 0xffffffffU ? 0xffffffffU : static_cast<std::uint32_t>(n); }

// A free of more than this is forgotten rather than checked and marked.
constexpr std::uintptr_t free_checked_bytes = 256 * 1024;
// A reset of at least this drops whole shadow pages instead of stamping each granule.
constexpr std::uintptr_t discard_bytes = 64 * 1024;
}  // namespace

namespace {
constexpr std::uint64_t pc_mask = shadow_granule::pc_mask;
constexpr std::uint64_t write_bit = shadow_granule::write_bit;
constexpr std::uint64_t atomic_bit = shadow_granule::atomic_bit;
constexpr std::uint64_t free_bit = shadow_granule::free_bit;
constexpr std::uint64_t used_bit = shadow_granule::used_bit;
constexpr std::uint32_t shared_bit = shadow_granule::shared_bit;

constexpr std::uint64_t describe(std::uint32_t offset, std::uint32_t size, bool write, bool atomic) {
  return shadow_granule::describe(offset, size, write, atomic);
}
std::uint32_t offset_of(std::uint64_t bits) {
  return static_cast<std::uint32_t>(bits >> shadow_granule::offset_shift) & 7;
}
std::uint32_t size_of(std::uint64_t bits) { return (static_cast<std::uint32_t>(bits >> shadow_granule::size_shift) & 7) + 1; }
void on_fork_child() { the_race_detector().forked(); }
}  // namespace

namespace {
race_detector* make_detector() {
  static race_detector detector;
  shadow::reserve();
  ::pthread_atfork(nullptr, nullptr, &on_fork_child);
  return &detector;
}
}  // namespace

race_detector* the_detector = nullptr;

race_detector& the_race_detector() {
  if (the_detector == nullptr) the_detector = make_detector();
  return *the_detector;
}

void race_detector::begin_iteration_if_new() {
  if (epoch_ == detail::control.epoch) return;
  epoch_ = detail::control.epoch;
  if (++generation_ == 0) generation_ = 1;  // 0 is what a reset writes
  evictions_ = 0;  // which cell a full granule gives up depends on this iteration alone, so replays report the same race
  for (vector_clock& c : clocks_) c.clear();
  for (sync_clocks& s : sync_) {
    s.exclusive.clear();
    s.shared.clear();
  }
  for (vector_clock& c : fence_released_) c.clear();
  for (vector_clock& c : fence_pending_) c.clear();
  seq_cst_fences_.clear();
  messages_.clear();
  release_sequences_.clear();
}

vector_clock& race_detector::clock(operation_id op) {
  if (op >= clocks_.size()) clocks_.resize(op + 1);
  vector_clock& c = clocks_[op];
  if (c.size() <= op) c.resize(op + 1, 0);
  if (c[op] == 0) c[op] = 1;  // an operation's own component starts at 1: 0 means "never seen"
  return c;
}

vector_clock& race_detector::own_clock() {
  begin_iteration_if_new();
  return clock(current_operation());
}

const vector_clock& race_detector::clock_of(operation_id op) {
  begin_iteration_if_new();
  return clock(op);
}

void race_detector::join_into(vector_clock& into, const vector_clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

void race_detector::acquire(object_id object, bool shared) {
  vector_clock& mine = own_clock();
  if (object >= sync_.size()) return;  // nobody released it yet
  join_into(mine, sync_[object].exclusive);
  if (!shared) join_into(mine, sync_[object].shared);
}

void race_detector::release(object_id object, bool shared) {
  vector_clock& mine = own_clock();
  if (object >= sync_.size()) sync_.resize(object + 1);
  join_into(shared ? sync_[object].shared : sync_[object].exclusive, mine);
  ++mine[current_operation()];  // later accesses are not covered by this release
}

void race_detector::acquire_at_next_fence(object_id object) {
  begin_iteration_if_new();
  if (object >= sync_.size()) return;
  const operation_id me = current_operation();
  if (me >= fence_pending_.size()) fence_pending_.resize(me + 1);
  join_into(fence_pending_[me], sync_[object].exclusive);
}

void race_detector::release_from_last_fence(object_id object) {
  begin_iteration_if_new();
  const operation_id me = current_operation();
  if (me >= fence_released_.size() || fence_released_[me].empty()) return;
  if (object >= sync_.size()) sync_.resize(object + 1);
  join_into(sync_[object].exclusive, fence_released_[me]);
}

void race_detector::fence(bool acquires, bool releases, bool seq_cst) {
  vector_clock& mine = own_clock();
  const operation_id me = current_operation();
  if (acquires && me < fence_pending_.size()) {
    join_into(mine, fence_pending_[me]);
    fence_pending_[me].clear();
  }
  if (seq_cst) {
    join_into(mine, seq_cst_fences_);
    join_into(seq_cst_fences_, mine);
  }
  if (releases || seq_cst) {
    if (me >= fence_released_.size()) fence_released_.resize(me + 1);
    fence_released_[me] = mine;
    ++mine[me];  // later accesses are not covered by this fence
  }
}

void race_detector::read_store(object_id object, std::uint32_t store, bool acquires) {
  vector_clock& mine = own_clock();
  if (object >= messages_.size() || store >= messages_[object].size()) return;  // carries nothing
  const vector_clock& message = messages_[object][store];
  if (acquires) {
    join_into(mine, message);
    return;
  }
  const operation_id me = current_operation();
  if (me >= fence_pending_.size()) fence_pending_.resize(me + 1);
  join_into(fence_pending_[me], message);
}

void race_detector::made_store(object_id object, std::uint32_t store, bool releases,
                               std::optional<std::uint32_t> read) {
  vector_clock& mine = own_clock();
  const operation_id me = current_operation();
  vector_clock message;
  if (releases) message = mine;
  else if (me < fence_released_.size()) message = fence_released_[me];
  if (me >= release_sequences_.size()) release_sequences_.resize(me + 1);
  std::vector<vector_clock>& sequences = release_sequences_[me];
  if (object >= sequences.size()) sequences.resize(object + 1);
  join_into(message, sequences[object]);
  if (releases) sequences[object] = message;
  if (object >= messages_.size()) messages_.resize(object + 1);
  std::vector<vector_clock>& stores = messages_[object];
  if (read && *read < stores.size()) join_into(message, stores[*read]);  // the release sequence goes on
  if (store >= stores.size()) stores.resize(store + 1);
  stores[store] = std::move(message);
  if (releases) ++mine[me];  // later accesses are not covered by this release
}

void race_detector::spawned(operation_id child) {
  vector_clock& parent_clock = own_clock();
  const vector_clock copy = parent_clock;
  ++parent_clock[current_operation()];
  vector_clock& child_clock = clock(child);
  join_into(child_clock, copy);
}

void race_detector::joined(operation_id child) {
  begin_iteration_if_new();
  const vector_clock copy = clock(child);  // a copy: clock() may grow clocks_
  join_into(clock(current_operation()), copy);
}

shadow_granule* race_detector::granule_of(std::uintptr_t address) {
  auto* g = static_cast<shadow_granule*>(shadow::of(address));
  if (g != nullptr && g->generation != generation_) {
    if (std::uint8_t* flag = shadow::region_flag(address)) *flag = 1;  // a store: no read fault first
    g->generation = generation_;
    g->toucher = 0;
    g->cells[0].bits = g->cells[1].bits = g->cells[2].bits = 0;
  }
  return g;
}

void race_detector::reset_range(std::uintptr_t address, std::uintptr_t size) {
  const std::uintptr_t end = address + size;
  std::uintptr_t head_end = end;
  std::uintptr_t tail_begin = end;
  if (size >= discard_bytes) shadow::discard(address, size, head_end, tail_begin);
  const auto stamp_empty = [](std::uintptr_t from, std::uintptr_t to) {
    constexpr std::uintptr_t region = std::uintptr_t{1} << shadow::region_bits;
    for (std::uintptr_t at = from / granule_bytes * granule_bytes; at < to;) {
      const std::uintptr_t region_end = std::min(to, (at / region + 1) * region);
      if (!shadow::region_written(at)) {  // nothing to clear, and no shadow page to fault in
        at = region_end;
        continue;
      }
      for (; at < region_end; at += granule_bytes) {
        auto* g = static_cast<shadow_granule*>(shadow::of(at));
        // A plain store: reading first would fault a page never touched in
        // twice (the zero page, then its copy) when the program then uses it.
        if (g != nullptr) g->generation = 0;
      }
    }
  };
  stamp_empty(address, head_end);
  stamp_empty(tail_begin, end);
}

void race_detector::allocated(std::uintptr_t address, std::uintptr_t size) {
  begin_iteration_if_new();
  reset_range(address, size);
}

void race_detector::forget(std::uintptr_t address, std::uintptr_t size) { allocated(address, size); }

std::optional<race> race_detector::freed(std::uintptr_t address, std::uintptr_t size, std::uintptr_t pc) {
  vector_clock& mine = own_clock();
  if (size == 0) return std::nullopt;
  if (size > free_checked_bytes) {
    reset_range(address, size);
    return std::nullopt;
  }
  const operation_id me = current_operation();
  const std::uint32_t now = mine[me];
  const access_site site{.operation = me, .write = true, .free = true, .address = address, .size = clamp32(size),
                         .pc = pc};
  std::optional<race> first;
  const std::uintptr_t end = address + size;
  for (std::uintptr_t at = address / granule_bytes * granule_bytes; at < end; at += granule_bytes) {
    shadow_granule* g = granule_of(at);
    if (g == nullptr) continue;
    // Freed twice: the C library says so; the first free stays the one remembered.
    if ((g->cells[0].bits & free_bit) != 0) return std::nullopt;
    if (!first) {
      std::optional<race> r = check(*g, at, site, 0, granule_bytes);
      if (r && !r->earlier.free) first = r;
    }
    g->cells[0] = {(pc & pc_mask) | describe(0, granule_bytes, true, false) | free_bit, me, now};
    g->cells[1].bits = g->cells[2].bits = 0;
  }
  return first;
}

bool race_detector::touch_is_shared(std::uintptr_t address, bool reachable) {
  begin_iteration_if_new();
  shadow_granule* g = granule_of(address);
  if (g == nullptr) return reachable;
  const operation_id me = current_operation();
  if (g->toucher == 0) g->toucher = me;
  else if ((g->toucher & ~shared_bit) != me) g->toucher |= shared_bit;
  if (reachable) g->toucher |= shared_bit;
  return (g->toucher & shared_bit) != 0;
}

std::optional<race> race_detector::check(shadow_granule& g, std::uintptr_t base, const access_site& a,
                                         std::uint32_t offset, std::uint32_t size) {
  using cell = shadow_granule::cell;
  const vector_clock& mine = clock(a.operation);
  const std::uint32_t now = mine[a.operation];
  const std::uint64_t kind = describe(offset, size, a.write, a.atomic);
  // The fast path: this operation made this access (or a write covering it,
  // for a read) since its last release; nothing can have changed.
  for (const cell& c : g.cells) {
    if (c.operation == a.operation && c.clock == now &&
        ((c.bits ^ kind) & ~pc_mask & ~write_bit) == 0 && ((c.bits & write_bit) != 0 || !a.write))
      return std::nullopt;
  }
  std::optional<race> found;
  int take = -1;
  int empty = -1;
  for (int i = 0; i < 3; ++i) {
    const cell& c = g.cells[i];
    if ((c.bits & used_bit) == 0) {
      empty = i;
      continue;
    }
    const std::uint32_t c_offset = offset_of(c.bits);
    const std::uint32_t c_size = size_of(c.bits);
    const bool c_write = (c.bits & write_bit) != 0;
    const bool c_atomic = (c.bits & atomic_bit) != 0;
    const bool c_free = (c.bits & free_bit) != 0;
    const bool before = c.operation == a.operation || (c.operation < mine.size() && c.clock <= mine[c.operation]);
    const bool overlaps = c_offset < offset + size && offset < c_offset + c_size;
    if (c_free) {
      // Freed memory: a use after free if the free happened before, else a
      // race with the free; either way nothing is recorded.
      return race{.earlier = {.operation = c.operation, .write = true, .free = true, .address = base,
                              .size = static_cast<std::uint32_t>(granule_bytes), .pc = c.bits & pc_mask},
                  .later = a,
                  .after_free = before};
    }
    if (!found && (c_write || a.write) && !(c_atomic && a.atomic) && overlaps && !before) {
      found = race{.earlier = {.operation = c.operation, .write = c_write, .atomic = c_atomic,
                               .address = base + c_offset, .size = c_size, .pc = c.bits & pc_mask},
                   .later = a};
    }
    // What the new access makes redundant: ordered before it and covered by it.
    if (take < 0 && before && c_offset >= offset && c_offset + c_size <= offset + size && (a.write || !c_write) &&
        (!a.atomic || c_atomic))
      take = i;
  }
  if (take < 0) take = empty >= 0 ? empty : static_cast<int>(evictions_++ % 3);
  g.cells[take] = {(a.pc & pc_mask) | kind, a.operation, now};
  return found;
}

std::optional<race> race_detector::on_access(std::uintptr_t address, std::uint32_t size, bool write,
                                             std::uintptr_t pc, bool atomic) {
  begin_iteration_if_new();
  const access_site site{.operation = current_operation(), .write = write, .atomic = atomic, .address = address,
                         .size = size, .pc = pc};
  // The usual access lies in one granule.
  const std::uintptr_t base = address / granule_bytes * granule_bytes;
  const std::uintptr_t end = address + size;
  if (end <= base + granule_bytes) {
    shadow_granule* g = granule_of(address);
    if (g == nullptr) return std::nullopt;
    if (g->toucher == 0) g->toucher = site.operation;
    else if ((g->toucher & ~shared_bit) != site.operation) g->toucher |= shared_bit;
    return check(*g, base, site, static_cast<std::uint32_t>(address - base), size);
  }
  // One spanning granules (unaligned, 16 bytes, ranges): each piece.
  std::optional<race> first;
  for (std::uintptr_t at = address; at < end;) {
    const std::uintptr_t piece = at / granule_bytes * granule_bytes;
    const std::uintptr_t stop = std::min(end, piece + granule_bytes);
    if (shadow_granule* g = granule_of(at)) {
      if (g->toucher == 0) g->toucher = site.operation;
      else if ((g->toucher & ~shared_bit) != site.operation) g->toucher |= shared_bit;
      std::optional<race> r = check(*g, piece, site, static_cast<std::uint32_t>(at - piece),
                                    static_cast<std::uint32_t>(stop - at));
      if (r && !first) first = r;
      if (r && r->earlier.free) break;
    }
    at = stop;
  }
  return first;
}

}  // namespace heddle::rt
