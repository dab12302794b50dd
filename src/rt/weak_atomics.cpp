// Push-button atomics under --memory-model rc11: the ThreadSanitizer ABI's
// atomic operations (tsan_atomics.cpp) on the same weak-memory model as
// heddle::atomic (engine/weak_memory.hpp), and the race detector's
// happens-before through the store each load read.
//
// A location is an address. Its history starts when an iteration first
// touches it atomically, with the memory's content then as its initial store,
// and ends when the memory stops being that object: when it is allocated,
// freed or unmapped (heap_hooks.cpp); when an instrumented plain store writes
// there (a constructor, in a reused stack frame or pooled block); or when an
// atomic operation finds the memory changed by something the model did not see
// (uninstrumented code, or a plain store the race detector's fast path
// skipped). The address then gets a new resource, so a new object id and an
// empty history. The invariant that makes this
// checkable: after every modelled operation the memory holds the newest store
// in modification order. A load that the model lets read an older store
// returns that store's value and leaves memory alone; a store placed before
// the newest is not written through.
//
// Mixed-size accesses are not modelled: a location touched with two sizes, or
// overlapping another location, runs sequentially consistent for the rest of
// its life (its loads read memory). Such an access synchronizes at least as
// much as it would: a load joins what the newest modelled store of every
// overlapping location carried (the stores made before the mix was seen), and
// every access is a seq_cst fence for the model's views and releases to and
// acquires from every overlapping location in the race detector by its order.
// Such accesses count as weak orders run as seq_cst in the verdict.
//
// The race detector (race_detector.hpp, read_store/made_store) keeps one
// message per store, keyed by the store's index in the model: an acquire load
// joins only the message of the store it read, so a relaxed publication, or a
// release whose release sequence another thread's store broke, leaves the
// plain data it guarded unordered, and its accesses race.
//
// Contract: every function runs under control (weak_memory_on()), called by
// the running operation from the hooks; the state belongs to one iteration.
#include <cstring>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "engine/weak_memory.hpp"
#include "rt/tsan_runtime.hpp"

namespace heddle::rt::tsan {

namespace {

using detail::engine;

struct location {
  std::uint32_t size = 0;
  bool mixed = false;  // accessed with another size, or overlapping another location
  unsigned char newest[16] = {};  // the memory's content after the last operation
};

struct weak_state {
  std::uint32_t epoch = 0;
  std::map<std::uintptr_t, location> locations;  // ordered: overlaps and freed ranges are neighbours

  void begin_if_new() {
    if (epoch == detail::control.epoch) return;
    epoch = detail::control.epoch;
    locations.clear();
  }
};

weak_state& state() {
  static weak_state s;
  s.begin_if_new();
  return s;
}

detail::weak_memory& model() { return engine::current()->weak_memory_state(); }

std::memory_order to_std(tsan_order order) { return static_cast<std::memory_order>(order); }
bool acquires(tsan_order o) { return o != tsan_order::relaxed && o != tsan_order::release; }
bool releases(tsan_order o) {
  return o == tsan_order::release || o == tsan_order::acq_rel || o == tsan_order::seq_cst;
}
bool detecting() { return engine::current()->config().detect_races; }

// The program's memory, read and written as the atomic it is (one operation
// runs at a time, so seq_cst here is exact).
template <class T>
void copy_in(std::uintptr_t address, void* out) {
  const T v = __atomic_load_n(reinterpret_cast<const volatile T*>(address), __ATOMIC_SEQ_CST);
  std::memcpy(out, &v, sizeof(T));
}
template <class T>
void copy_out(std::uintptr_t address, const void* in) {
  T v;
  std::memcpy(&v, in, sizeof(T));
  __atomic_store_n(reinterpret_cast<volatile T*>(address), v, __ATOMIC_SEQ_CST);
}
__extension__ typedef unsigned __int128 uint128;

void read_memory(std::uintptr_t address, std::uint32_t size, void* out) {
  switch (size) {
    case 1: copy_in<std::uint8_t>(address, out); break;
    case 2: copy_in<std::uint16_t>(address, out); break;
    case 4: copy_in<std::uint32_t>(address, out); break;
    case 8: copy_in<std::uint64_t>(address, out); break;
    default: copy_in<uint128>(address, out); break;
  }
}

void write_memory(std::uintptr_t address, std::uint32_t size, const void* in) {
  switch (size) {
    case 1: copy_out<std::uint8_t>(address, in); break;
    case 2: copy_out<std::uint16_t>(address, in); break;
    case 4: copy_out<std::uint32_t>(address, in); break;
    case 8: copy_out<std::uint64_t>(address, in); break;
    default: copy_out<uint128>(address, in); break;
  }
}

// After a modelled operation: the memory holds the newest store.
void remember_newest(const weak_access& a) {
  auto it = state().locations.find(a.address);
  if (it != state().locations.end()) read_memory(a.address, a.size, it->second.newest);
}

// The locations [address, address + size) overlaps, itself included.
std::vector<std::pair<std::uintptr_t, std::uint32_t>> overlapping(std::uintptr_t address, std::uint32_t size) {
  weak_state& s = state();
  std::vector<std::pair<std::uintptr_t, std::uint32_t>> found;
  auto it = s.locations.lower_bound(address);
  if (it != s.locations.begin()) {
    auto previous = std::prev(it);
    if (previous->first + previous->second.size > address) found.emplace_back(previous->first, previous->second.size);
  }
  for (; it != s.locations.end() && it->first < address + size; ++it) found.emplace_back(it->first, it->second.size);
  return found;
}

// An access to a location the model leaves sequentially consistent (mixed
// sizes), already done on memory; see the file's comment.
void unmodelled(const weak_access& a, point_kind kind, tsan_order order, std::uintptr_t pc) {
  note_order(order);
  detail::weak_memory& m = model();
  race_detector& detector = the_race_detector();
  const bool detect = detecting();
  const auto others = overlapping(a.address, a.size);
  if (kind != point_kind::write) {
    for (const auto& [address, size] : others) {
      const object_id x = atomic_resource(address).id();
      unsigned char ignored[16];
      read_memory(address, size, ignored);
      m.load(x, to_std(order), ignored, size, true, std::source_location{});
      if (!detect) continue;
      detector.read_store(x, m.last_read(), acquires(order));
      if (acquires(order)) detector.acquire(x, false);
      else detector.acquire_at_next_fence(x);
    }
  }
  m.fence(std::memory_order_seq_cst);
  if (!detect) return;
  check_atomic_access(a.address, a.size, kind != point_kind::read, pc);
  if (kind == point_kind::read) return;
  for (const auto& [address, size] : others) {
    const object_id x = atomic_resource(address).id();
    if (releases(order)) detector.release(x, false);
    else detector.release_from_last_fence(x);
  }
}

}  // namespace

weak_access weak_begin(point_kind kind, std::uintptr_t address, std::uint32_t size, std::uintptr_t pc) {
  atomic_point(kind, address, pc);
  return weak_locate(address, size);
}

weak_access weak_locate(std::uintptr_t address, std::uint32_t size) {
  weak_state& s = state();
  unsigned char now[16];
  read_memory(address, size, now);
  auto it = s.locations.find(address);
  if (it == s.locations.end()) {
    location fresh;
    fresh.size = size;
    std::memcpy(fresh.newest, now, size);
    // Overlapping locations: neither is modelled from now on.
    auto next = s.locations.lower_bound(address);
    for (auto n = next; n != s.locations.end() && n->first < address + size; ++n) fresh.mixed = n->second.mixed = true;
    if (next != s.locations.begin()) {
      auto previous = std::prev(next);
      if (previous->first + previous->second.size > address) fresh.mixed = previous->second.mixed = true;
    }
    it = s.locations.emplace_hint(next, address, fresh);
  } else if (it->second.size != size) {
    it->second.mixed = true;
  } else if (!it->second.mixed && std::memcmp(it->second.newest, now, size) != 0) {
    // Written by something the model does not see: a new object with the
    // memory's content as its initial value.
    forget_atomic(address);
    std::memcpy(it->second.newest, now, size);
  }
  return {address, size, atomic_resource(address).id(), !it->second.mixed};
}

void weak_load(const weak_access& a, tsan_order order, void* value, std::uintptr_t pc) {
  read_memory(a.address, a.size, value);
  if (!a.modelled) {
    unmodelled(a, point_kind::read, order, pc);
    return;
  }
  detail::weak_memory& m = model();
  m.load(a.object, to_std(order), value, a.size, false, std::source_location{});
  if (detecting()) {
    the_race_detector().read_store(a.object, m.last_read(), acquires(order));
    check_atomic_access(a.address, a.size, false, pc);
  }
}

void weak_store(const weak_access& a, tsan_order order, const void* value, std::uintptr_t pc) {
  if (!a.modelled) {
    write_memory(a.address, a.size, value);
    unmodelled(a, point_kind::write, order, pc);
    return;
  }
  unsigned char current[16];
  read_memory(a.address, a.size, current);
  detail::weak_memory& m = model();
  if (m.store(a.object, to_std(order), current, value, a.size, std::source_location{}))
    write_memory(a.address, a.size, value);
  if (detecting()) {
    check_atomic_access(a.address, a.size, true, pc);
    the_race_detector().made_store(a.object, m.last_written(), releases(order), std::nullopt);
  }
  remember_newest(a);
}

void weak_rmw_read(const weak_access& a, tsan_order order, tsan_order failure, void* value, const void* expected) {
  read_memory(a.address, a.size, value);
  if (!a.modelled) return;
  model().rmw_read(a.object, to_std(order), to_std(failure), value, expected, a.size, std::source_location{});
}

void weak_rmw(const weak_access& a, tsan_order order, const void* before, bool wrote, std::uintptr_t pc) {
  if (!a.modelled) {
    unmodelled(a, wrote ? point_kind::rmw : point_kind::read, order, pc);
    return;
  }
  unsigned char after[16];
  read_memory(a.address, a.size, after);
  detail::weak_memory& m = model();
  if (!m.rmw(a.object, to_std(order), before, after, a.size, wrote) && wrote) {
    // Placed before newer stores: memory keeps the newest (remembered after the last operation).
    auto it = state().locations.find(a.address);
    if (it != state().locations.end()) write_memory(a.address, a.size, it->second.newest);
  }
  if (detecting()) {
    race_detector& detector = the_race_detector();
    const std::uint32_t read = m.last_read();
    detector.read_store(a.object, read, acquires(order));
    check_atomic_access(a.address, a.size, wrote, pc);
    if (wrote) detector.made_store(a.object, m.last_written(), releases(order), read);
  }
  remember_newest(a);
}

void weak_fence(tsan_order order) { model().fence(to_std(order)); }

void weak_forget(std::uintptr_t address, std::uintptr_t size) {
  weak_state& s = state();
  if (s.locations.empty()) return;
  auto it = s.locations.lower_bound(address);
  if (it != s.locations.begin() && std::prev(it)->first + std::prev(it)->second.size > address) --it;
  for (; it != s.locations.end() && it->first < address + size;) {
    forget_atomic(it->first);
    it = s.locations.erase(it);
  }
}

}  // namespace heddle::rt::tsan
