// Where a program called into an interposed function (libheddle-rt's pthread
// layer): the points such a call makes have no std::source_location (a line
// of the runtime would mean nothing to the user), so the engine records the
// code address of the program's call instead, and reports symbolize it to
// the program's line, as for instrumented memory accesses.
//
// Contract: index = operation id; 0 means none. Only the running operation
// writes its own entry (rt::call_site, for the length of the call); the
// engine reads it when a point has neither a location nor a pc.
#pragma once

#include <cstdint>
#include <vector>

#include "heddle/model.hpp"

namespace heddle::detail {

// Never destroyed: a program may hold this library twice (linked, and inside
// libheddle-rt.so), and one object destroyed by both copies would be freed twice.
std::vector<std::uintptr_t>& interposed_call_pcs() noexcept;

inline std::uintptr_t interposed_call_pc(operation_id op) noexcept {
  const std::vector<std::uintptr_t>& pcs = interposed_call_pcs();
  return op < pcs.size() ? pcs[op] : 0;
}

}  // namespace heddle::detail
