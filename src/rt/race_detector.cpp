// Vector clocks, sync edges and the per-granule access check of the race
// detector; see race_detector.hpp for the algorithm and its contract.
#include "rt/race_detector.hpp"

#include <algorithm>

namespace heddle::rt {

namespace {
constexpr std::uintptr_t granule_bytes = 8;

class busy_scope {
 public:
  explicit busy_scope(bool& busy) : busy_(busy) { busy_ = true; }
  ~busy_scope() { busy_ = false; }
  busy_scope(const busy_scope&) = delete;
  busy_scope& operator=(const busy_scope&) = delete;

 private:
  bool& busy_;
};

std::uint32_t clamp32(std::uintptr_t n) { return n > 0xffffffffU ? 0xffffffffU : static_cast<std::uint32_t>(n); }
}  // namespace

race_detector& the_race_detector() {
  static race_detector detector;
  return detector;
}

void race_detector::begin_iteration_if_new() {
  if (epoch_ == detail::control.epoch) return;
  epoch_ = detail::control.epoch;
  for (vector_clock& c : clocks_) c.clear();
  for (sync_clocks& s : sync_) {
    s.exclusive.clear();
    s.shared.clear();
  }
  for (vector_clock& c : fence_released_) c.clear();
  for (vector_clock& c : fence_pending_) c.clear();
  seq_cst_fences_.clear();
  granules_.clear();
  freed_.clear();
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

template <class F>
void race_detector::for_granules_in(std::uintptr_t address, std::uintptr_t size, F f) {
  const std::uintptr_t first = address / granule_bytes;
  const std::uintptr_t last = (address + size + granule_bytes - 1) / granule_bytes;
  // Look up each granule of a small range; walk the records for a large one.
  if (last - first <= granules_.size()) {
    for (std::uintptr_t key = first; key < last; ++key)
      if (auto it = granules_.find(key); it != granules_.end()) f(it->second);
  } else {
    for (auto& [key, g] : granules_)
      if (key >= first && key < last) f(g);
  }
}

void race_detector::erase_freed(std::uintptr_t begin, std::uintptr_t end) {
  auto it = freed_.lower_bound(begin);
  if (it != freed_.begin()) {
    const auto before = std::prev(it);
    if (before->second.end > begin) it = before;
  }
  while (it != freed_.end() && it->first < end) {
    const std::uintptr_t start = it->first;
    const freed_block block = it->second;
    it = freed_.erase(it);
    // What lies outside [begin, end) stays freed.
    if (start < begin) {
      freed_block head = block;
      head.end = begin;
      freed_.emplace(start, head);
    }
    if (block.end > end) freed_.emplace(end, block);
  }
}

void race_detector::reset_range(std::uintptr_t address, std::uintptr_t size) {
  const std::uintptr_t first = address / granule_bytes;
  const std::uintptr_t last = (address + size + granule_bytes - 1) / granule_bytes;
  if (last - first <= granules_.size()) {
    for (std::uintptr_t key = first; key < last; ++key) granules_.erase(key);
  } else {
    std::erase_if(granules_, [&](const auto& entry) { return entry.first >= first && entry.first < last; });
  }
  erase_freed(address, address + size);
}

void race_detector::allocated(std::uintptr_t address, std::uintptr_t size) {
  begin_iteration_if_new();
  if (busy_ || size == 0) return;
  const busy_scope scope(busy_);
  reset_range(address, size);
}

void race_detector::forget(std::uintptr_t address, std::uintptr_t size) { allocated(address, size); }

std::optional<race> race_detector::freed(std::uintptr_t address, std::uintptr_t size, std::uintptr_t pc) {
  vector_clock& mine = own_clock();  // first: it may allocate
  if (busy_ || size == 0) return std::nullopt;
  const busy_scope scope(busy_);
  // Freed twice: the C library says so; the first free stays the one remembered.
  if (check_freed(address, 1, true, pc, false)) return std::nullopt;
  const operation_id me = current_operation();
  const std::uint32_t now = mine[me];
  std::optional<race> first;
  const access_record record{me, now, 0, static_cast<std::uint8_t>(granule_bytes), true, false, address,
                             clamp32(size), pc, true};
  for_granules_in(address, size, [&](granule& g) {
    std::optional<race> r = check_granule(g, record);
    if (r && !first) first = r;
  });
  reset_range(address, size);  // no history left: what is remembered is the free
  freed_.emplace(address, freed_block{address + size, me, now, address, size, pc});
  return first;
}

std::optional<race> race_detector::check_freed(std::uintptr_t address, std::uint32_t size, bool write,
                                               std::uintptr_t pc, bool atomic) {
  if (freed_.empty()) return std::nullopt;
  auto it = freed_.upper_bound(address);
  if (it != freed_.begin()) {
    const auto before = std::prev(it);
    if (before->second.end > address) it = before;
  }
  if (it == freed_.end() || it->first >= address + size) return std::nullopt;
  const freed_block& b = it->second;
  const operation_id me = current_operation();
  const vector_clock& mine = clock(me);
  const bool ordered = b.operation == me || (b.operation < mine.size() && b.clock <= mine[b.operation]);
  race r{.earlier = {.operation = b.operation, .write = true, .free = true, .address = b.address,
                     .size = clamp32(b.size), .pc = b.pc},
         .later = {.operation = me, .write = write, .atomic = atomic, .address = address, .size = size, .pc = pc},
         .after_free = ordered};
  return r;
}

bool race_detector::touch_is_shared(std::uintptr_t address) {
  begin_iteration_if_new();
  const busy_scope scope(busy_);
  granule& g = granules_[address / granule_bytes];
  const operation_id me = current_operation();
  if (g.first_toucher == 0) g.first_toucher = me;
  else if (g.first_toucher != me) g.shared = true;
  return g.shared;
}

std::optional<race> race_detector::check_granule(granule& g, const access_record& a) {
  const vector_clock& mine = clock(a.operation);
  std::optional<race> found;
  const auto overlaps = [&](const access_record& r) {
    return r.offset < a.offset + a.size && a.offset < r.offset + r.size;
  };
  const auto happened_before = [&](const access_record& r) {
    return r.operation == a.operation || (r.operation < mine.size() && r.clock <= mine[r.operation]);
  };
  for (const access_record& r : g.accesses) {
    if (!(r.write || a.write) || (r.atomic && a.atomic) || !overlaps(r) || happened_before(r)) continue;
    found = race{{r.operation, r.write, r.atomic, r.free, r.address, r.full_size, r.pc},
                 {a.operation, a.write, a.atomic, a.free, a.address, a.full_size, a.pc}};
    break;
  }
  // Drop what the new access makes redundant, then record it. An atomic
  // access does not stand in for a plain one: a later atomic access races
  // with the plain one only.
  std::erase_if(g.accesses, [&](const access_record& r) {
    return happened_before(r) && r.offset >= a.offset && r.offset + r.size <= a.offset + a.size &&
           (a.write || !r.write) && (!a.atomic || r.atomic);
  });
  g.accesses.push_back(a);
  return found;
}

std::optional<race> race_detector::on_access(std::uintptr_t address, std::uint32_t size, bool write,
                                             std::uintptr_t pc, bool atomic) {
  const vector_clock& mine = own_clock();
  const operation_id me = current_operation();
  const std::uint32_t now = mine[me];
  const busy_scope scope(busy_);
  // Freed memory has no history to check against: the free is what it meets.
  if (std::optional<race> r = check_freed(address, size, write, pc, atomic)) return r;
  std::optional<race> first;
  // An access may span granules (unaligned, 16 bytes, ranges): check each piece.
  std::uintptr_t at = address;
  const std::uintptr_t end = address + size;
  while (at < end) {
    const std::uintptr_t base = at / granule_bytes * granule_bytes;
    const std::uintptr_t stop = std::min(end, base + granule_bytes);
    granule& g = granules_[base / granule_bytes];
    if (g.first_toucher == 0) g.first_toucher = me;
    else if (g.first_toucher != me) g.shared = true;
    const access_record record{me,    now,    static_cast<std::uint8_t>(at - base),
                               static_cast<std::uint8_t>(stop - at),
                               write, atomic, address, size, pc};
    std::optional<race> r = check_granule(g, record);
    if (r && !first) first = r;
    at = stop;
  }
  return first;
}

}  // namespace heddle::rt
