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
#include <string_view>
#include <vector>

#include "heddle/bug.hpp"

namespace heddle::rt {

// The frames of the call that returns to `pc`, innermost first: the line
// the code is on, then, for each function inlined there, the line of the
// call it was inlined at (so an atomic inlined from <atomic> is at
// atomic_base.h:820 in std::atomic<int>::load, called at counter.cpp:12 in
// bump). Empty when the code has no debug information (compile with -g).
std::vector<source_position> symbolize_frames(std::uintptr_t pc);

// True when `file` is a header or source of the C or C++ library (under
// /usr/include, /usr/lib, a c++/ include directory), not the user's code.
bool is_library_file(std::string_view file);

// The source position of the call that returns to `pc`: its innermost frame
// in the user's code (past frames inlined from library headers), else its
// innermost frame; unknown (line 0) without debug information.
source_position symbolize(std::uintptr_t pc);

// True when `pc` lies in libheddle-rt itself: heddle's frames never show in
// a report.
bool is_runtime_code(std::uintptr_t pc);

// The global variable a data address lies in, as "name" or "name+offset";
// empty for the heap, stacks and stripped code.
std::string symbolize_data(std::uintptr_t address);

}  // namespace heddle::rt
