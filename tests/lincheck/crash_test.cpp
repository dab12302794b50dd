// A crash inside a scenario of check(), called from a plain GoogleTest test:
// the process still dies of the signal, after the scenario was minimized in
// processes of its own and reported with its interleaving (crash_minimize.hpp).
// Death tests: the crash takes the test's child process down, not the suite.
#include <gtest/gtest.h>

#include <cstdlib>

#include "racy_slot.hpp"

namespace {

TEST(lincheck_crash_death, check_minimizes_a_crash_and_dies_of_it) {
  // The report's lines in order: the minimized scenario has put() before
  // the parallel part and one take() in each of its two threads; the
  // interleaving shows where a take() crashed, and that it never returned.
  EXPECT_EXIT((void)heddle::lincheck::check(racy::slot_spec()), testing::KilledBySignal(SIGSEGV),
              "heddle lincheck: crash in scenario [0-9]+ of 100 \\(minimized from 6 calls to 3;.*"
              "init: put\\([0-9]\\).*"
              "\\| take\\(\\) \\| take\\(\\) \\|.*"
              "\\(crashed: SIGSEGV \\(invalid memory access\\)\\).*"
              "\\(never returned\\).*"
              "Why: SIGSEGV \\(invalid memory access\\) in the call take\\(\\) \\[T[12]\\]");
}

TEST(lincheck_crash_death, without_minimization_the_crash_is_reported_as_found) {
  EXPECT_EXIT((void)heddle::lincheck::check(racy::slot_spec().minimize(false)), testing::KilledBySignal(SIGSEGV),
              "heddle lincheck: crash in scenario [0-9]+ of 100\n.*"
              "Why: SIGSEGV \\(invalid memory access\\) in the call take\\(\\) \\[T[12]\\]");
}

// Sequentially wrong (get() returns one more than it has), and its
// destructor aborts when the object had fewer than 3 calls: the generated
// scenarios (6 calls) fail as non-linearizable, and only their minimization,
// removing calls, makes a run that crashes. The standby must start from that
// candidate, not from the generated scenario (which does not crash).
class fragile_counter {
 public:
  ~fragile_counter() {
    if (calls_ < 3) std::abort();
  }
  void inc() {
    ++calls_;
    ++value_;
  }
  int get() {
    ++calls_;
    return value_ + 1;
  }

 private:
  int calls_ = 0;
  int value_ = 0;
};

struct counter_model {
  int value = 0;
  void inc() { ++value; }
  int get() const { return value; }
  bool operator==(const counter_model&) const = default;
};

TEST(lincheck_crash_death, a_crash_in_a_minimization_candidate_is_minimized_from_that_candidate) {
  const auto spec = heddle::lincheck::spec<fragile_counter, counter_model>()
                        .op("inc", &fragile_counter::inc, &counter_model::inc)
                        .op("get", &fragile_counter::get, &counter_model::get)
                        .threads(2)
                        .ops_per_thread(2);
  EXPECT_EXIT((void)heddle::lincheck::check(spec), testing::KilledBySignal(SIGABRT),
              "heddle lincheck: crash in scenario [0-9]+ of 100 \\(minimized from 6 calls to 0.*"
              "Why: SIGABRT \\(abort: a failed assert\\(\\), std::terminate or abort\\(\\)\\) outside the "
              "calls \\(building or destroying the object\\)");
}

}  // namespace
