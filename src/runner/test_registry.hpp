// What test front ends other than HEDDLE_TEST (HEDDLE_LINCHECK_TEST) share
// with its registry (test_registry.cpp): the result file `heddle test` reads,
// one JSON record per test (runner/summary_json.hpp), and the binary's path.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace heddle::detail {

// --heddle_result_file, empty when the binary does not run under `heddle test`.
const std::string& test_result_file();
// Appends one test's record to the result file, if there is one.
void append_test_result(const nlohmann::json& record);
// The running binary's absolute path (traces name it for `heddle replay`).
std::string test_binary_path();

}  // namespace heddle::detail
