// The controlled side of the ThreadSanitizer hooks; see tsan_runtime.hpp.
//
// Objects are resources keyed by address: one per atomic address (kind
// atomic), one per 8-byte granule of plain memory (kind variable), one per
// annotated sync address. They are registered on first use in each iteration,
// so their ids follow first-use order and traces stay stable under ASLR. The
// resources live in pools reused across iterations; what maps addresses to them
// is dropped when an iteration starts.
#include "rt/tsan_runtime.hpp"

#include <elf.h>
#include <link.h>

#include <array>
#include <deque>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "rt/race_detector.hpp"
#include "rt/suppressions.hpp"
#include "rt/symbolizer.hpp"
#include "runner/timeline.hpp"

namespace heddle::rt::tsan {

namespace {

using rt::access_site;
using rt::race;
using rt::race_detector;
using rt::symbolize;
using rt::symbolize_data;
using rt::the_race_detector;

using detail::engine;

class resource_pool {
 public:
  explicit resource_pool(object_kind kind) : kind_(kind) {}
  void clear() {
    by_address_.clear();
    addresses_.clear();
    used_ = 0;
  }
  // The next at(address) gives a new resource: the memory there is a new object.
  void forget(std::uintptr_t address) {
    if (by_address_.erase(address) != 0) addresses_.erase(address);
  }
  // The same for every address in [address, address + size): memory allocated
  // again is a new object. Without it, an atomic in a block that reuses a freed
  // one's address would keep the freed atomic's object id, and which addresses
  // the C library's heap reuses differs between backends (one arena per OS
  // thread under threads, one for all operations under fibers): the object ids
  // the strategies see, and so the learning strategies' decisions, would
  // depend on the backend.
  void forget(std::uintptr_t address, std::uintptr_t size) {
    if (addresses_.empty()) return;
    for (auto it = addresses_.lower_bound(address); it != addresses_.end() && *it - address < size;) {
      by_address_.erase(*it);
      it = addresses_.erase(it);
    }
  }
  const resource& at(std::uintptr_t address) {
    auto [it, fresh] = by_address_.try_emplace(address, nullptr);
    if (fresh) {
      if (used_ == pool_.size()) pool_.emplace_back(kind_);
      it->second = &pool_[used_++];
      addresses_.insert(address);
    }
    return *it->second;
  }

 private:
  object_kind kind_;
  std::deque<resource> pool_;  // stable addresses; stale ones re-register on use
  std::size_t used_ = 0;
  std::unordered_map<std::uintptr_t, const resource*> by_address_;
  std::set<std::uintptr_t> addresses_;  // by_address_'s keys, in order, for forget(address, size)
};

struct iteration_state {
  std::uint32_t epoch = 0;
  resource_pool atomics{object_kind::atomic};
  resource_pool variables{object_kind::variable};
  resource_pool annotated{object_kind::user};
  std::vector<std::vector<std::uintptr_t>> stacks;  // index = operation id: callers' pcs
  std::vector<int> ignoring;                        // index = operation id: ignore depth
  // The last atomic access was the spin_loads-th load in a row by spin_op of
  // spin_address, with no other atomic access in between (atomic_point).
  operation_id spin_op = 0;
  std::uintptr_t spin_address = 0;
  unsigned spin_loads = 0;
  // The loads of that run by spin_op, of any location, since its start or
  // its last zero sleep (atomic_point): how many, and the first of them
  // (location and call site).
  unsigned run_loads = 0;
  std::array<std::pair<std::uintptr_t, std::uintptr_t>, 16> run{};
  void run_load(std::uintptr_t address, std::uintptr_t pc) {
    if (run_loads < run.size()) run[run_loads] = {address, pc};
    ++run_loads;
  }
  bool run_has(std::uintptr_t address, std::uintptr_t pc) const {
    for (unsigned i = 0; i < std::min<std::size_t>(run_loads, run.size()); ++i)
      if (run[i].first == address && run[i].second == pc) return true;
    return false;
  }

  // [address, address + size) holds new objects (or none).
  void forget(std::uintptr_t address, std::uintptr_t size) {
    atomics.forget(address, size);
    variables.forget(address / 8 * 8, size + address % 8);
    annotated.forget(address, size);
  }

  void begin_if_new() {
    if (epoch == detail::control.epoch) return;
    epoch = detail::control.epoch;
    atomics.clear();
    variables.clear();
    annotated.clear();
    for (auto& s : stacks) s.clear();
    for (int& i : ignoring) i = 0;
    spin_op = 0;
    spin_loads = 0;
    run_loads = 0;
  }
  std::vector<std::uintptr_t>& stack() {
    const operation_id op = current_operation();
    if (op >= stacks.size()) stacks.resize(op + 1);
    return stacks[op];
  }
  int& ignore_depth() {
    const operation_id op = current_operation();
    if (op >= ignoring.size()) ignoring.resize(op + 1, 0);
    return ignoring[op];
  }
};

iteration_state& state() {
  static iteration_state s;
  s.begin_if_new();
  return s;
}

source_position symbolize_for_report(std::uintptr_t pc) { return symbolize(pc); }

std::string basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Where an access was, for the report: its innermost frame in the user's
// code, and under it the library frame it was made in, when the access is in
// library code (an atomic inlined from <atomic>, a std::vector<bool> bit).
// `callers` (the access's shadow stack, outermost first) places an access
// made in a library function that was not inlined; only the access being
// made has one. Returns the text and the user frame found.
std::pair<std::string, source_position> where_text(std::uintptr_t pc, const std::vector<std::uintptr_t>* callers) {
  const std::vector<source_position> frames = rt::symbolize_frames(pc);
  const source_position* user = nullptr;
  for (const source_position& f : frames)
    if (user == nullptr && f.known() && !rt::is_library_file(f.file)) user = &f;
  source_position from_stack;
  if (user == nullptr && callers != nullptr) {
    for (auto c = callers->rbegin(); c != callers->rend() && user == nullptr; ++c) {
      if (rt::is_runtime_code(*c)) break;
      from_stack = symbolize(*c);
      if (from_stack.known() && !rt::is_library_file(from_stack.file)) user = &from_stack;
    }
  }
  const source_position* library = !frames.empty() && frames.front().known() && rt::is_library_file(frames.front().file)
                                       ? &frames.front() : nullptr;
  std::string text;
  const source_position* shown = user != nullptr ? user : !frames.empty() ? &frames.front() : nullptr;
  if (shown != nullptr && shown->known()) text += fmt::format(" at {}:{}", shown->file, shown->line);
  if (shown != nullptr && !shown->function.empty()) text += " in " + shown->function;
  if (library != nullptr && user != nullptr)
    text += fmt::format(" (in {} at {}:{})", library->function.empty() ? "library code" : library->function,
                        basename_of(library->file), library->line);
  return {text, shown != nullptr ? *shown : source_position{}};
}

std::string side(const engine& e, const access_site& a, const race& r, const std::vector<std::uintptr_t>* callers) {
  std::string text = fmt::format("{}{} by {}", a.atomic ? "atomic " : "",
                                 a.free ? "free" : a.write ? "write" : "read", e.describe_operation(a.operation));
  // A free being made knows its block; one recorded in the shadow knows only
  // that it covered these bytes.
  if (a.free) {
    if (&a == &r.later) text += fmt::format(" (the block of {} bytes at {:#x})", a.size, a.address);
  } else if (a.address != r.later.address || a.size != r.later.size) {
    text += fmt::format(" ({} bytes at {:#x})", a.size, a.address);
  }
  return text + where_text(a.pc, callers).first;
}

// An access to a block freed before it (ordered by happens-before: otherwise
// it is a race with the free). Reported as a crash: in production it reads or
// corrupts whatever the allocator put there next.
void report_use_after_free(engine& e, const race& r) {
  const access_site& use = r.later;
  std::string message = fmt::format("use after free: {}{} of {} bytes at {:#x} by {}", use.atomic ? "atomic " : "",
                                    use.write ? "write" : "read", use.size, use.address,
                                    e.describe_operation(use.operation));
  const auto [use_text, at] = where_text(use.pc, &state().stack());
  message += use_text;
  message += fmt::format("; it was freed by {}", e.describe_operation(r.earlier.operation));
  message += where_text(r.earlier.pc, nullptr).first;
  e.report(bug_kind::crash, std::move(message), at, false);
}

[[gnu::noinline]] void report_race(engine& e, const race& r) {
  if (r.after_free) {
    report_use_after_free(e, r);
    return;
  }
  if (race_suppressed(r, state().stack())) return;
  const std::string variable = symbolize_data(r.later.address);
  const std::vector<std::uintptr_t>& stack = state().stack();
  std::string message = fmt::format("data race on {} bytes at {:#x}{}: {}, and {}", r.later.size, r.later.address,
                                    variable.empty() ? "" : " (" + variable + ")", side(e, r.earlier, r, nullptr),
                                    side(e, r.later, r, &stack));
  // The user's call of the function that made the later access: the first
  // caller in user code past the access's own frame (heddle's frames, such
  // as the fork server's call of main, never show).
  const source_position at = where_text(r.later.pc, &stack).second;
  for (auto c = stack.rbegin(); c != stack.rend(); ++c) {
    if (rt::is_runtime_code(*c)) break;
    const source_position caller = symbolize(*c);
    if (!caller.known() || rt::is_library_file(caller.file)) continue;
    if (caller.file == at.file && caller.line == at.line) continue;
    message += fmt::format(" (called from {}:{})", caller.file, caller.line);
    break;
  }
  message += ", not ordered by happens-before";
  // Not unwinding here: the access may sit in C code or a noexcept function.
  // The iteration ends at this operation's next scheduling point.
  e.report(bug_kind::data_race, std::move(message), at, false);
}

}  // namespace

namespace {
bool installed = false;
}  // namespace

// The shared thread-local storage: [thread_storage_begin, + thread_storage_size).
std::uintptr_t thread_storage_begin = 0;
std::uintptr_t thread_storage_size = 0;

void ignore_thread_storage(std::uintptr_t begin, std::uintptr_t end) noexcept {
  thread_storage_begin = begin;
  thread_storage_size = end - begin;
}

namespace {

// The program's globals: the writable segments of every module loaded at
// startup (data, bss), found once when the runtime is installed, before the
// fork server forks. Any thread can reach a global, so under --memory shared
// its accesses are scheduling points from the first touch, not from the
// second operation's: a check-then-act on a global that no one touched before
// is found (docs/pushbutton.md, "Memory accesses"). Heap and stack memory stay
// points only once a second operation touches them.
struct address_range {
  std::uintptr_t begin;
  std::uintptr_t size;
};
std::vector<address_range> global_ranges;

void find_globals() {
  global_ranges.clear();
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void*) -> int {
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[i];
          if (segment.p_type == PT_LOAD && (segment.p_flags & PF_W) != 0 && segment.p_memsz != 0)
            global_ranges.push_back({info->dlpi_addr + segment.p_vaddr, segment.p_memsz});
        }
        return 0;
      },
      nullptr);
}

bool is_global(std::uintptr_t address) noexcept {
  for (const address_range& r : global_ranges)
    if (address - r.begin < r.size) return true;
  return false;
}

// While the running operation is the only one alive, a point chooses nothing:
// main filling a global table before it starts threads (or after it joined
// them) costs no steps.
bool another_operation_alive(const engine& e) noexcept {
  for (operation_id id = 1; id < e.operation_count(); ++id)
    if (id != e.running() && !e.finished(id)) return true;
  return false;
}

}  // namespace

bool instrumented() noexcept { return installed; }

void install() {
  installed = true;
  find_globals();
  detail::hb = &the_race_detector();
  detail::symbolize_pc = &symbolize_for_report;
}

namespace {
// Everything but the fast path: the memory policy's point, the full check.
[[gnu::noinline]] void checked_access(engine* e, std::uintptr_t address, std::uint32_t size, bool write,
                                      std::uintptr_t pc) {
  const memory_policy policy = e->config().memory;
  const bool detect = e->config().detect_races;
  race_detector& detector = *rt::the_detector;
  detector.set_fast_path(!detect || policy == memory_policy::all ? race_detector::fast_path::off
                         : policy == memory_policy::shared       ? race_detector::fast_path::unshared
                                                                 : race_detector::fast_path::any);
  if (policy == memory_policy::none && !detect) return;
  iteration_state& s = state();
  if (s.ignore_depth() > 0 || size == 0) return;
  bool point = false;
  switch (policy) {
    case memory_policy::all: point = true; break;
    case memory_policy::shared:
      point = detector.touch_is_shared(address, is_global(address) && another_operation_alive(*e));
      break;
    case memory_policy::none: break;
  }
  if (point) {
    const resource& r = s.variables.at(address / 8 * 8);
    e->point(write ? point_kind::write : point_kind::read, r.id(), std::source_location{}, pc);
  }
  // A plain store over an atomic (a constructor in reused memory): a new object.
  if (write && detail::control.weak_memory) [[unlikely]] weak_forget(address, size);
  if (e->unwinding() || !detect) return;
  if (const std::optional<race> r = detector.on_access(address, size, write, pc)) report_race(*e, *r);
}
}  // namespace

void memory_access(std::uintptr_t address, std::uint32_t size, bool write, std::uintptr_t pc) {
  if (address - thread_storage_begin < thread_storage_size) return;
  checked_access(engine::current(), address, size, write, pc);
}

void heap_allocated(std::uintptr_t address, std::uintptr_t size) {
  if (detail::control.weak_memory) weak_forget(address, size);
  state().forget(address, size);
  the_race_detector().allocated(address, size);
}

void heap_freed(std::uintptr_t address, std::uintptr_t size, std::uintptr_t pc) {
  if (detail::control.weak_memory) weak_forget(address, size);
  engine* e = engine::current();
  if (e->unwinding() || !e->config().detect_races || state().ignore_depth() > 0) {
    the_race_detector().forget(address, size);
    return;
  }
  if (const std::optional<race> r = the_race_detector().freed(address, size, pc)) report_race(*e, *r);
}

void unmapped(std::uintptr_t address, std::uintptr_t size) {
  if (detail::control.weak_memory) weak_forget(address, size);
  state().forget(address, size);
  the_race_detector().forget(address, size);
}

// A wait loop that only loads one atomic (a spin with a pause instruction, as
// atomic_queue's and many hand-written ones are) yields every
// spin_yield_loads loads: a zero sleep before the load, as if the loop
// called sched_yield (posix_sleep.cpp). Strategies that keep the running
// operation (dfs, dpor, pct's highest priority, db) otherwise run such a
// loop alone to --max-steps, the operation it waits for never scheduled, and
// the iteration checks nothing after the spin began. A yield changes no
// memory: the program's executions are the same, only the strategies learn
// that this operation waits for another. Loads of the same location by the
// same operation with no atomic access of anyone in between are the sign;
// a loop that also stores or reads-modifies-writes is not a pure wait.
//
// A wait loop that loads several atomics (Dekker's `while (wants[other])
// { if (turn != me) ... }`, Peterson's `while (wants[other] && turn ==
// other)`) yields too: once a run of loads (by one operation, no other
// atomic access in between) has spin_yield_loads loads and comes back to a
// load it began with (the same location from the same call site), the loop
// went round; the zero sleep goes before that load, so each try of the
// loop between two of them begins at the same load and holds whole turns
// (dpor compares a try with the one before it: dpor.cpp, "Wait loops").
constexpr unsigned spin_yield_loads = 8;

void atomic_point(point_kind kind, std::uintptr_t address, std::uintptr_t pc) {
  iteration_state& s = state();
  const operation_id op = current_operation();
  if (kind != point_kind::read) {
    s.spin_op = 0;
  } else if (op != s.spin_op) {
    s.spin_op = op;
    s.spin_address = address;
    s.spin_loads = 1;
    s.run_loads = 0;
    s.run_load(address, pc);
  } else {
    bool turn = false;
    if (address != s.spin_address) {
      s.spin_address = address;
      s.spin_loads = 1;
    } else if (++s.spin_loads > spin_yield_loads) {
      turn = true;
    }
    if (s.run_loads >= spin_yield_loads && s.run_has(address, pc)) turn = true;
    if (turn) {
      s.spin_loads = 1;
      s.run_loads = 0;
      sleep_until(now(), {});
    }
    s.run_load(address, pc);
  }
  const resource& r = s.atomics.at(address);
  engine::current()->point(kind, r.id(), std::source_location{}, pc);
}

const resource& atomic_resource(std::uintptr_t address) { return state().atomics.at(address); }

void forget_atomic(std::uintptr_t address) { state().atomics.forget(address); }

// Under sc (or for an atomic rc11 does not model, rt/weak_atomics.cpp) the
// operation runs as seq_cst whatever its order; a weaker one is noted, so the
// verdict says it covered sequentially consistent interleavings only.
void note_order(tsan_order order) {
  if (order == tsan_order::seq_cst) return;
  if (engine* e = engine::current(); e != nullptr && e->running() != 0) e->note_weak_order();
}

void check_atomic_access(std::uintptr_t address, std::uint32_t size, bool write, std::uintptr_t pc) {
  engine* e = engine::current();
  if (state().ignore_depth() == 0 && !e->unwinding() && e->config().detect_races) {
    if (const std::optional<race> found = the_race_detector().on_access(address, size, write, pc, true))
      report_race(*e, *found);
  }
}

void atomic_edges(point_kind kind, std::uintptr_t address, std::uint32_t size, tsan_order order, std::uintptr_t pc) {
  note_order(order);
  if (!hooks_active()) return;
  const bool acquires = order != tsan_order::relaxed && order != tsan_order::release;
  const bool releases = order == tsan_order::release || order == tsan_order::acq_rel || order == tsan_order::seq_cst;
  const resource& r = state().atomics.at(address);
  race_detector& detector = the_race_detector();
  if (kind != point_kind::write) {
    if (acquires) detector.acquire(r.id(), false);
    else detector.acquire_at_next_fence(r.id());
  }
  // Checked after its acquire (what it synchronizes with is ordered before
  // it) and before its release (whoever acquires that has the access before).
  check_atomic_access(address, size, kind != point_kind::read, pc);
  if (kind != point_kind::read) {
    if (releases) detector.release(r.id(), false);
    else detector.release_from_last_fence(r.id());
  }
}

bool spurious_cas_failure(std::uintptr_t address) {
  if (!spurious_cas_failures_enabled()) return false;
  return choose_rare(point_kind::rmw, state().atomics.at(address));
}

void fence(tsan_order order, std::uintptr_t pc) {
  if (!detail::control.weak_memory) note_order(order);
  engine::current()->point(point_kind::fence, 0, std::source_location{}, pc);
  if (!hooks_active()) return;
  if (detail::control.weak_memory) weak_fence(order);
  const bool acquires = order != tsan_order::relaxed && order != tsan_order::release;
  const bool releases = order == tsan_order::release || order == tsan_order::acq_rel || order == tsan_order::seq_cst;
  the_race_detector().fence(acquires, releases, order == tsan_order::seq_cst);
}

void function_entry(std::uintptr_t caller_pc) { state().stack().push_back(caller_pc); }

void function_exit() {
  // An exception skips exits: the stack may be shorter than the code's depth.
  auto& stack = state().stack();
  if (!stack.empty()) stack.pop_back();
}

void ignore_begin() { ++state().ignore_depth(); }

void ignore_end() {
  int& depth = state().ignore_depth();
  if (depth > 0) --depth;
}

void annotated_acquire(std::uintptr_t address, bool shared) {
  the_race_detector().acquire(state().annotated.at(address).id(), shared);
}

void annotated_release(std::uintptr_t address, bool shared) {
  the_race_detector().release(state().annotated.at(address).id(), shared);
}

}  // namespace heddle::rt::tsan
