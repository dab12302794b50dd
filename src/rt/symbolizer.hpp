// Code addresses of instrumented programs to source positions, for reports.
//
// libdw (elfutils) reads the program's and its libraries' DWARF line tables
// through dwfl over /proc/<pid>/maps; nothing is parsed by hand. It is used
// lazily, only when a report is made, and caches what it found. A pc is a
// return address taken in a hook (__builtin_return_address); the position
// looked up is that of pc - 1, which lies inside the call instruction and so on
// the source line that made the access.
#pragma once

#include <cstdint>
#include <string>

#include "heddle/bug.hpp"

namespace heddle::rt {

// The source position of the call that returns to `pc`; unknown (line 0) when
// the code has no debug information (compile with -g).
source_position symbolize(std::uintptr_t pc);

// The global variable a data address lies in, as "name" or "name+offset";
// empty for the heap, stacks and stripped code.
std::string symbolize_data(std::uintptr_t address);

}  // namespace heddle::rt
