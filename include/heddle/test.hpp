// HEDDLE_TEST: a test that heddle explores, and that is also a GoogleTest test,
// so CTest, gtest filters and IDEs see it.
//
//   HEDDLE_TEST(account, concurrent_withdrawals) { ... HEDDLE_ASSERT(balance >= 0); }
//   HEDDLE_TEST(account, pct_only, .iterations = 5000, .strategy = "pct:3") { ... }
//
// Link heddle::heddle and heddle::main (or call heddle::init() from your own
// main before RUN_ALL_TESTS). The binary runs directly or under `heddle test`.
#pragma once

#include <gtest/gtest.h>

#include "heddle/explore.hpp"
#include "heddle/options.hpp"

namespace heddle {

// Parses and removes --heddle_* flags (GoogleTest's flag style), then
// initializes GoogleTest. Exits with status 2 on a bad flag.
void init(int* argc, char** argv);
// init() + RUN_ALL_TESTS(), with --heddle_list handled. What heddle::main runs.
int run_all_tests(int argc, char** argv);

namespace detail {
struct registered_test {
  const char* suite;
  const char* name;
  const char* file;
  int line;
  options opts;
  void (*body)();
};
bool register_test(const registered_test& test);
// A test that runs itself (HEDDLE_LINCHECK_TEST) but is listed by
// --heddle_list with the HEDDLE_TESTs.
bool register_listed_test(const char* suite, const char* name, const char* file, int line);
void run_registered_test(const char* suite, const char* name);
}  // namespace detail

}  // namespace heddle

#define HEDDLE_TEST(suite, name, ...)                                                             \
  static void heddle_body_##suite##_##name();                                                     \
  [[maybe_unused]] static const bool heddle_registered_##suite##_##name =                         \
      ::heddle::detail::register_test({#suite, #name, __FILE__, __LINE__,                          \
                                       ::heddle::options{__VA_ARGS__}, &heddle_body_##suite##_##name}); \
  TEST(suite, name) { ::heddle::detail::run_registered_test(#suite, #name); }                     \
  static void heddle_body_##suite##_##name()
