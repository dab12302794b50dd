// PCT's change points (Burckhardt et al., ASPLOS 2010), shared by pct and
// pctt: depth - 1 step indices drawn uniformly below the step count learned
// from earlier iterations (at least 32), taken in order as the iteration
// reaches them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "strategies/rng.hpp"

namespace heddle::detail {

class change_points {
 public:
  void draw(rng& r, unsigned depth, std::uint64_t learned_steps) {
    const std::uint64_t k = std::max<std::uint64_t>(learned_steps, 32);
    points_.clear();
    for (unsigned i = 1; i < depth; ++i) points_.push_back(r.below(k));
    std::sort(points_.begin(), points_.end());
    next_ = 0;
  }
  // True once for each change point at or before `step`.
  bool take(std::uint64_t step) noexcept {
    if (next_ >= points_.size() || step < points_[next_]) return false;
    ++next_;
    return true;
  }

 private:
  std::vector<std::uint64_t> points_;  // sorted step indices
  std::size_t next_ = 0;
};

}  // namespace heddle::detail
