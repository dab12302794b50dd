// The programs of tests/pushbutton, linked into rt_tests with their main
// renamed (see tests/rt/CMakeLists.txt).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace heddle::rt_test {

struct pushbutton_program {
  std::string name;    // file name without extension: "abba_deadlock", "abba_deadlock_fixed"
  std::string source;  // absolute path, for its "// expect:" line
  std::function<int()> main;
};

const std::vector<pushbutton_program>& pushbutton_programs();

// gtest prints a parameter in test lists (and so in CTest's test names) and
// failures; without this, as the object's bytes.
inline void PrintTo(const pushbutton_program& p, std::ostream* os) { *os << p.name; }

}  // namespace heddle::rt_test
