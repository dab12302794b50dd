// The one-line verdict of a run without a bug, from its statistics alone, so
// that explore(), the CLI's summary (which reads JSON records and merged
// shards) and heddle run's fork server word it the same (verdict.cpp).
#pragma once

#include <string>

#include "heddle/explore.hpp"

namespace heddle::detail {

// "passed: explored all 21 schedules (verified)", "passed 35 iterations, all
// cut at --max-steps 20000: nothing after step 20000 was checked", ...
std::string pass_verdict(const statistics& s);

// Whether a run without a bug covered its whole search space: dfs or dpor ran
// out of schedules (or executions) and no iteration was cut at --max-steps. A
// search that ran out with cut iterations is exhausted, not verified: what the
// cut iterations would have done after the cut was not checked. The verdict
// names the scope a verified run covers (its memory model and caveats).
bool verified(const statistics& s) noexcept;

// What a verdict adds when Ctrl-C or SIGTERM ended the run early
// (runner/interrupt.hpp): explore()'s and heddle run's alike.
inline constexpr const char* stopped_early = "stopped early: interrupted by SIGINT or SIGTERM";

}  // namespace heddle::detail
