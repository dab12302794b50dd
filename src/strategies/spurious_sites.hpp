// How the exhaustive strategies (dfs, dpor) bound rare choices: a spurious
// wake-up or a spurious compare-exchange failure is explored at most once per
// call site in each schedule.
//
// Branching on every rare choice makes a search endless: a compare-exchange
// retry loop that fails spuriously runs again and meets the same choice, and
// so does a condition-variable wait in its `while` loop. What a spurious event
// can break is code that does not expect it at that site (an `if` around a
// wait, a weak exchange without a retry), and one spurious event per site and
// schedule shows that. So each schedule may take the rare value at a site once,
// at any of its passes; after it has, later choices at that site take the
// usual value without branching, and are counted (bounded_choices()) so the
// verdict can say what it covered.
//
// Contract: the effective bound depends only on the choices taken earlier in
// the same iteration, so a replayed prefix meets the same bounds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/strategy.hpp"

namespace heddle::detail {

class spurious_sites {
 public:
  void begin_iteration() { taken_.clear(); }
  // The number of values to explore at `c`: c.bound, or 1 where the site has
  // taken its spurious event in this schedule already.
  std::uint64_t bound(const choice& c) const {
    if (!c.rare || c.site == 0) return c.bound;
    return std::find(taken_.begin(), taken_.end(), c.site) != taken_.end() ? 1 : c.bound;
  }
  // Records the value taken at `c`; `forced`: bound(c) left no alternative.
  void taken(const choice& c, std::uint64_t value, bool forced) {
    if (forced) ++bounded_;
    if (c.rare && c.site != 0 && value != 0) taken_.push_back(c.site);
  }
  std::uint64_t bounded_choices() const { return bounded_; }

 private:
  std::vector<std::uint64_t> taken_;  // sites that took their rare value in this schedule (few)
  std::uint64_t bounded_ = 0;
};

}  // namespace heddle::detail
