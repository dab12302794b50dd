// A crash inside a scenario of check(), called from a plain GoogleTest test:
// the process still dies of the signal, after the scenario was minimized in
// processes of its own and reported with its interleaving (crash_minimize.hpp).
// Death tests: the crash takes the test's child process down, not the suite.
#include <gtest/gtest.h>

#include "racy_slot.hpp"

namespace {

TEST(lincheck_crash_death, check_minimizes_a_crash_and_dies_of_it) {
  // The report's lines in order: the minimized scenario has put() before
  // the parallel part and one take() in each of its two threads; the
  // interleaving ends with the take() that never returned.
  EXPECT_EXIT((void)heddle::lincheck::check(racy::slot_spec()), testing::KilledBySignal(SIGSEGV),
              "heddle lincheck: crash in scenario [0-9]+ of 100 \\(minimized from 6 calls to 3;.*"
              "init: put\\([0-9]\\).*"
              "\\| take\\(\\) \\| take\\(\\) \\|.*"
              "\\(never returned\\).*"
              "Why: SIGSEGV \\(invalid memory access\\) in the call take\\(\\) \\[T[12]\\]");
}

TEST(lincheck_crash_death, without_minimization_the_crash_is_reported_as_found) {
  EXPECT_EXIT((void)heddle::lincheck::check(racy::slot_spec().minimize(false)), testing::KilledBySignal(SIGSEGV),
              "heddle lincheck: crash in scenario [0-9]+ of 100\n.*"
              "Why: SIGSEGV \\(invalid memory access\\) in the call take\\(\\) \\[T[12]\\]");
}

}  // namespace
