// The RapidCheck front end: RapidCheck generates and shrinks the commands,
// heddle runs them in parallel and lincheck judges the histories. The racy
// stack's property fails with lincheck's report; the fixed stack's holds.
#include <optional>
#include <sstream>

#include <gtest/gtest.h>
#include <heddle/lincheck/rapidcheck.hpp>

#include "stack.hpp"

namespace {

using examples::seq_stack;

template <class Stack>
struct push : heddle::lincheck::rc_command<seq_stack, Stack, void> {
  int value = *rc::gen::inRange(1, 4);
  void call(Stack& s) const override { s.push(value); }
  void expect(seq_stack& m) const override { m.push(value); }
  void show(std::ostream& os) const override { os << "push(" << value << ")"; }
};
template <class Stack>
struct pop : heddle::lincheck::rc_command<seq_stack, Stack, std::optional<int>> {
  std::optional<int> call(Stack& s) const override { return s.pop(); }
  std::optional<int> expect(seq_stack& m) const override { return m.pop(); }
  void show(std::ostream& os) const override { os << "pop()"; }
};
template <class Stack>
struct size : heddle::lincheck::rc_command<seq_stack, Stack, int> {
  int call(Stack& s) const override { return s.size(); }
  int expect(seq_stack& m) const override { return m.size(); }
  void show(std::ostream& os) const override { os << "size()"; }
};

template <class Stack>
rc::detail::TestResult check_stack() {
  rc::detail::TestParams params;
  params.maxSuccess = 60;
  params.maxSize = 6;
  params.seed = 7;
  // rc::detail::checkTestable is what RC_GTEST_PROP runs; called directly,
  // the test can look at the result.
  return rc::detail::checkTestable(
      [] {
        heddle::lincheck::check_parallel<seq_stack, Stack>(
            rc::state::gen::execOneOfWithArgs<push<Stack>, pop<Stack>, size<Stack>>(),
            // random keeps the shrunk three-call case failing within 30 runs
            {.threads = 2, .ops_per_thread = 3, .init_ops = 1, .iterations = 30, .strategy = "random"});
      },
      rc::detail::TestMetadata{}, params);
}

TEST(lincheck_rapidcheck, racy_stack_fails_the_property_with_a_shrunk_case) {
  const auto result = check_stack<examples::racy_stack>();
  rc::detail::FailureResult failure;
  ASSERT_TRUE(result.match(failure)) << "the property held";
  EXPECT_NE(failure.description.find("heddle lincheck: non-linearizable"), std::string::npos) << failure.description;
  EXPECT_NE(failure.description.find("push("), std::string::npos) << failure.description;
  std::ostringstream counterexample;
  for (const auto& [type, value] : failure.counterExample) counterexample << type << " " << value << "\n";
  EXPECT_NE(counterexample.str().find("push("), std::string::npos) << counterexample.str();
  // The case RapidCheck generated: the prefix and one sequence per thread;
  // shrunk to the three calls the bug needs (a push, and a pop and a size
  // that see it before the count does).
  EXPECT_EQ(failure.counterExample.size(), 3u);
  std::size_t calls = 0;
  for (const char* call : {"push(", "pop()", "size()"})
    for (std::size_t at = counterexample.str().find(call); at != std::string::npos;
         at = counterexample.str().find(call, at + 1))
      ++calls;
  EXPECT_LE(calls, 3u) << counterexample.str();
}

TEST(lincheck_rapidcheck, fixed_stack_holds) {
  const auto result = check_stack<examples::fixed_stack>();
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  ASSERT_TRUE(result.match(success)) << (result.match(failure) ? failure.description : "gave up");
  EXPECT_EQ(success.numSuccess, 60);
}

}  // namespace
