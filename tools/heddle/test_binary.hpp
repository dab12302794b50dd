// What the CLI knows about a test binary: whether it can run, which heddle
// tests it holds (through the --heddle_list protocol of
// src/runner/test_registry.cpp), and which of them a --filter selects.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heddle::cli {

struct listed_test {
  std::string id;        // "suite.name"
  std::string location;  // "file:line"
};

// Throws heddle::usage_error with one line when `path` is missing, a directory
// or not executable. `role` says what the path is for, e.g. "test binary".
void check_executable(const std::string& path, std::string_view role);

// `name` as exec would find it: a name without a slash is looked up in PATH.
// Throws heddle::usage_error (one line) when no directory holds it.
std::string resolve_program(const std::string& name);

// Runs `program --heddle_list`. Throws heddle::usage_error when the program
// does not speak the protocol.
std::vector<listed_test> list_tests(const std::string& program);

// GoogleTest filter syntax: "POSITIVE[-NEGATIVE]", each a ':'-separated list
// of globs with '*' and '?'. An empty filter selects everything.
bool filter_selects(std::string_view filter, std::string_view test);

// `text` quoted for a POSIX shell when it needs quoting.
std::string shell_quote(const std::string& text);

// The first line of `text`, so messages from below stay one line.
std::string first_line(std::string_view text);

}  // namespace heddle::cli
