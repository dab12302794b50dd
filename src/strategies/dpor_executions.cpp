// dpor under memory_model::rc11: what one execution is, so that dpor counts
// executions, not schedules (dpor.cpp runs the search).
//
// Under rc11 an execution is an execution graph (Lahav et al., PLDI 2017):
// each operation's steps in program order, which store each load read (rf),
// and each location's modification order (mo). Many schedules make one
// graph: a relaxed load that reads the initial value may run before or after
// the other thread's store, and two stores nobody orders take either mo
// whichever runs first, since a store may be placed before a newer one. The
// search's dependence and sleep sets follow rf and mo (dpor_races.cpp), so it
// runs most graphs once, and a graph is counted once: the engine names the atomic part
// (weak_memory::execution: rf and mo, events named by operation and index,
// not by when they ran), and this file names the rest, as the
// Mazurkiewicz trace of the steps that are not atomic accesses (locks,
// condition variables, joins, ...): for each such step, which step of which
// operation last wrote its object before it, plus the data choices the
// memory model does not make. Two schedules get one identity exactly when
// they make the same graph and order the other objects alike, up to hash
// collisions (64 bits: about 2^-64 per pair, and a collision could only make
// the count smaller, never the search).
//
// The count is still kept by name, not by construction as in GenMC's optimal
// exploration (Kokologiannakis et al., "Truly Stateless, Optimal Dynamic
// Partial Order Reduction", POPL 2022): two seq_cst fences are checked on the
// graph and not reordered, but where a seq_cst fence and a seq_cst access
// meet in the seq_cst view, dpor runs both orders and may make one graph
// twice (repeated_), which the verdict counts once.
#include "strategies/dpor.hpp"

namespace heddle::detail::dpor_impl {

namespace {
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
// A step's name: its operation and its index among that operation's visible
// steps, which do not depend on the interleaving.
std::uint64_t name_of(const step_event& e) { return std::uint64_t{e.f.op} << 32 | e.local; }
}  // namespace

void dpor_strategy::note_choice(const choice& c, std::uint64_t value) {
  if (!weak_ || weak_choice(c)) return;
  const operation_id op = events_.empty() ? 0 : events_.back().f.op;
  if (choices_by_op_.size() <= op) choices_by_op_.resize(op + 1, 0);
  choices_ += mix(mix(std::uint64_t{op} << 32 | ++choices_by_op_[op]) ^ value);
}

std::uint64_t dpor_strategy::execution_identity(std::uint64_t weak) const {
  std::uint64_t h = mix(weak) + choices_;
  // by object: the name of the last step that wrote it (0: none yet)
  std::vector<std::uint64_t> last_write;
  std::uint64_t last_global = 0;
  auto atomic_access = [](point_kind k) {
    return k == point_kind::read || k == point_kind::write || k == point_kind::rmw || k == point_kind::fence;
  };
  for (const step_event& e : events_) {
    if (e.f.invisible || atomic_access(e.f.kind)) continue;
    const std::uint64_t me = name_of(e);
    std::uint64_t term = mix(me ^ (static_cast<std::uint64_t>(e.f.kind) << 56));
    // Only the object of the step's own point: whether a step then blocked
    // (blocked_on) depends on whether what it waits for had already happened,
    // which is the interleaving, not the execution.
    if (const object_id o = e.f.object; o != 0) {
      if (last_write.size() <= o) last_write.resize(o + 1, 0);
      term = mix(term ^ last_write[o]);
      if (mode_of(e.f.kind) == access::write) last_write[o] = me;
    }
    if (e.f.global) {
      term = mix(term ^ last_global);
      last_global = me;
    }
    h += term;
  }
  return h;
}

}  // namespace heddle::detail::dpor_impl
