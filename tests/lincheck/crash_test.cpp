// A crash inside a scenario of check(), called from a plain GoogleTest test:
// the runner's worker process dies of it, not the test; the crash comes back
// as a failure, minimized by the runner's minimizer (calls and schedule
// together, each candidate in a process of its own) and reported with its
// interleaving up to the crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "racy_slot.hpp"

namespace {

// The failure's report, checked against `pattern` (ECMAScript, `.` matching newlines too via [^]).
void expect_crash(const heddle::lincheck::result& r, const std::string& pattern) {
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->kind, "crash");
  EXPECT_EQ(r.failure->bug, heddle::bug_kind::crash);
  EXPECT_TRUE(std::regex_search(r.failure->report, std::regex(pattern))) << r.failure->report;
}

heddle::lincheck::result quietly(heddle::lincheck::declaration d) {
  d.opts.print_report = false;
  return heddle::lincheck::check(d);
}

TEST(lincheck_crash, check_minimizes_a_crash_to_fewer_calls_and_survives_it) {
  // The report's lines in order: the minimized scenario has put() before
  // the parallel part and one take() in each of its two threads; the
  // interleaving shows where a take() crashed, and that it never returned.
  const auto r = quietly(racy::slot_spec());
  expect_crash(r,
               "^heddle lincheck: crash in scenario [0-9]+ of 100 \\(minimized from 6 calls to 3;[^]*"
               "init: put\\([0-9]\\)[^]*"
               "\\| take\\(\\) \\| take\\(\\) \\|[^]*"
               "\\(crashed: SIGSEGV \\(invalid memory access\\)\\)[^]*"
               "\\(never returned\\)[^]*"
               "Why: SIGSEGV \\(invalid memory access\\) in the call take\\(\\) \\[T[12]\\]");
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->original_calls, 6u);
  EXPECT_EQ(r.failure->operations, (std::vector<std::string>{"put", "take", "take"}));
  EXPECT_EQ(r.failure->reductions, 3u);
  EXPECT_EQ(r.failure->message.rfind("SIGSEGV (invalid memory access) in the call take() [T", 0), 0u)
      << r.failure->message;
}

TEST(lincheck_crash, without_minimization_the_crash_is_reported_as_found) {
  const auto r = quietly(racy::slot_spec().minimize(false));
  expect_crash(r, "^heddle lincheck: crash in scenario [0-9]+ of 100\n[^]*"
                  "Why: SIGSEGV \\(invalid memory access\\) in the call take\\(\\) \\[T[12]\\]");
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->original_calls, 6u);
  EXPECT_EQ(r.failure->operations.size(), 6u);
}

// Sequentially wrong (get() returns one more than it has), and its
// destructor aborts when the object had fewer than 3 calls: the generated
// scenarios (6 calls) fail as non-linearizable, and only their minimization,
// removing calls, makes a run that crashes: a candidate that ends in another
// failure is not kept (the runner's minimizer keeps the same kind of failure).
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

TEST(lincheck_crash, a_crash_in_a_minimization_candidate_does_not_replace_the_failure) {
  const auto spec = heddle::lincheck::spec<fragile_counter, counter_model>()
                        .op("inc", &fragile_counter::inc, &counter_model::inc)
                        .op("get", &fragile_counter::get, &counter_model::get)
                        .threads(2)
                        .ops_per_thread(2);
  const auto r = quietly(spec);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->kind, "non-linearizable") << r.failure->report;
  EXPECT_GE(r.failure->operations.size(), 3u) << r.failure->report;
}

}  // namespace
