// Whether the race detector reports a race or counts it as suppressed (the
// options' suppressions file, runner/suppressions.hpp). See suppressions.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "rt/race_detector.hpp"

namespace heddle::rt {

// True (and counted) when an entry of the suppressions in force matches the
// race; `later_callers` is the shadow call stack of the access being made,
// outermost first.
bool race_suppressed(const race& r, const std::vector<std::uintptr_t>& later_callers);

}  // namespace heddle::rt
