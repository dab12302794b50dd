// Running an unmodified program under heddle (`heddle run`, and `heddle
// replay` of a trace such a run recorded): finding libheddle-rt, deciding
// whether it must be preloaded, and starting the program with the HEDDLE_*
// variables its fork server reads (src/rt/fork_server.hpp).
//
// Contract: a program that does not exist or cannot run is a usage_error (one
// line, exit 2). A program not linked against libheddle-rt runs with
// LD_PRELOAD=libheddle-rt.so and one warning line: its memory accesses are
// not instrumented, synchronization is still controlled. The program's own
// exit status is returned (0 no bug, 1 bug, 2 usage, 3 internal error).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace heddle::cli {

// Push-button traces name their test "run:<program file name>".
bool is_pushbutton_test(const std::string& test);

// libheddle-rt.so: $HEDDLE_RT, else next to this heddle executable in the
// build tree (../src/rt) or the install tree (../lib). Throws usage_error.
std::string find_runtime();

// True when the ELF file at `program` lists libheddle-rt.so as needed.
bool links_runtime(const std::string& program);

// Runs `program` with `arguments` under heddle, with `variables` (HEDDLE_*
// names and values) set. Returns the exit status as above.
int run_under_heddle(const std::string& program, const std::vector<std::string>& arguments,
                     const std::map<std::string, std::string>& variables);

}  // namespace heddle::cli
