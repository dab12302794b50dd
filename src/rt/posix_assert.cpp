// assert() under control: glibc's assert calls __assert_fail, which would
// print and abort the process. Under control a failed assert is a bug of kind
// assertion whose message names the expression, file, line and function, and
// the iteration ends as for any bug (the fork server then needs no signal to
// tell an assert from a crash). Outside control it is the C library's.
#undef NDEBUG  // assert.h declares __assert_fail only without it
#include <assert.h>

#include <string>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

HEDDLE_RT_DEFINE(void, __assert_fail, (const char* expression, const char* file, unsigned line, const char* function)) {
  if (!heddle::rt::controlled()) HEDDLE_REAL(__assert_fail)(expression, file, line, function);
  heddle::rt::report(heddle::bug_kind::assertion, std::string("assertion failed: ") + expression + " (" + file +
                                                      ":" + std::to_string(line) + ", in " + function + ")");
}
