// Linearizability checking of concurrent objects (DESIGN.md section 11; docs/lincheck.md).
//
// A user declares the object under test, its operations with generators for
// their parameters, a sequential model with the same operations, and options;
// heddle generates scenarios (a sequential prefix, T threads x K calls run in
// parallel, a sequential suffix), runs each under the controlled scheduler
// several times, and checks every history against the model:
//
//   HEDDLE_LINCHECK_TEST(stack, push_pop_size) {
//     return heddle::lincheck::spec<my_stack, seq_stack>()
//         .op("push", &my_stack::push, &seq_stack::push, heddle::lincheck::range(1, 5))
//         .op("pop", &my_stack::pop, &seq_stack::pop)
//         .op("size", &my_stack::size, &seq_stack::size)
//         .threads(3).ops_per_thread(4);
//   }
//
// or, inside any GoogleTest test, `EXPECT_TRUE(heddle::lincheck::check(spec))`.
//
// What is required, checked at compile time with a message that says what to
// add: one generator per parameter of each operation; the model's member
// callable with the object's arguments; results comparable with == (the model
// may return std::optional<R> where the object returns R, or bool where the
// object returns void: "nothing" means the operation would block in that
// state); the model copyable and equality-comparable (std::hash<Model>, when
// it exists, speeds up the verifier's memo). The object is built fresh for
// every run (default constructor, or .make(factory)) and should use heddle's
// models (heddle::mutex, heddle::atomic, ...) so the scheduler controls it.
// What can only be checked at run time (duplicate names, zero threads, an
// unknown strategy) is reported by check() as one line before any scenario runs.
#pragma once

#include <gtest/gtest.h>

#include "heddle/lincheck/spec.hpp"
#include "heddle/test.hpp"

// A GoogleTest test whose body returns a lincheck declaration.
// Listed by `heddle list` with the HEDDLE_TESTs (link heddle::main), and run
// by `heddle test` with its --seed, --iterations (runs per scenario),
// --scenarios, --strategy, --max-steps, --memory, --detect-races.
#define HEDDLE_LINCHECK_TEST(suite, name)                                                            \
  static ::heddle::lincheck::declaration heddle_lincheck_##suite##_##name();                           \
  [[maybe_unused]] static const bool heddle_lincheck_listed_##suite##_##name =                        \
      ::heddle::detail::register_listed_test(#suite, #name, __FILE__, __LINE__);                       \
  TEST(suite, name) {                                                                                  \
    ::heddle::lincheck::detail::run_test(#suite, #name, __FILE__, __LINE__, heddle_lincheck_##suite##_##name()); \
  }                                                                                                    \
  static ::heddle::lincheck::declaration heddle_lincheck_##suite##_##name()
