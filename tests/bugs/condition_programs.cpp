// Condition-variable waits: lost wake-up, `if` instead of `while`, one
// condition variable shared by two predicates.
#include "programs.hpp"

namespace heddle_bugs {

std::vector<program> condition_programs() { return {}; }

}  // namespace heddle_bugs
