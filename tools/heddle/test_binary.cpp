// Test binaries as the CLI sees them; see test_binary.hpp. The filter follows
// GoogleTest's own syntax so `--filter` means the same here as --gtest_filter.
#include "test_binary.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heddle/explore.hpp"
#include "process.hpp"
#include "pushbutton.hpp"

namespace heddle::cli {
namespace {

bool glob_matches(std::string_view pattern, std::string_view text) {
  // Iterative '*' backtracking: remember the last star and where it matched.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool any_matches(std::string_view patterns, std::string_view test) {
  while (true) {
    const auto colon = patterns.find(':');
    if (glob_matches(patterns.substr(0, colon), test)) return true;
    if (colon == std::string_view::npos) return false;
    patterns.remove_prefix(colon + 1);
  }
}

// Whether `program` holds heddle's test registry, which answers --heddle_list:
// its message for an unknown --heddle_ flag is in the binary's read-only data
// then (libheddle is linked statically). Asked before running the program,
// because a plain GoogleTest binary ignores --heddle_list and runs its whole
// suite. A file that cannot be read is left to the run to diagnose.
bool has_heddle_registry(const std::string& program) {
  const int fd = ::open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  struct stat info{};
  bool found = true;
  if (::fstat(fd, &info) == 0 && info.st_size > 0) {
    const auto size = static_cast<std::size_t>(info.st_size);
    void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data != MAP_FAILED) {
      static constexpr std::string_view marker = "heddle: unknown flag --heddle_";
      found = ::memmem(data, size, marker.data(), marker.size()) != nullptr;
      ::munmap(data, size);
    }
  }
  ::close(fd);
  return found;
}

}  // namespace

void check_executable(const std::string& path, std::string_view role) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0)
    throw usage_error(fmt::format("cannot run {} '{}': {}", role, path, std::strerror(errno)));
  if (S_ISDIR(info.st_mode)) throw usage_error(fmt::format("cannot run {} '{}': it is a directory", role, path));
  if (::access(path.c_str(), X_OK) != 0)
    throw usage_error(fmt::format("cannot run {} '{}': it is not executable", role, path));
}

std::string resolve_program(const std::string& name) {
  // As execvp and a shell do: a name without a slash is looked up in PATH, so
  // `heddle run -- sort` runs the sort a user's shell would.
  if (name.empty() || name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    std::string candidate = dir.empty() ? name : fmt::format("{}/{}", dir, name);  // empty entry: the current directory
    struct stat info{};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  throw usage_error(fmt::format("cannot run program '{}': not found in PATH", name));
}

std::vector<listed_test> list_tests(const std::string& program) {
  if (!has_heddle_registry(program)) {
    if (links_runtime(program))
      throw usage_error(fmt::format("'{}' is built with heddle-cc/heddle-c++ but has no HEDDLE_TEST: run the program "
                                    "itself with `heddle run -- {}`",
                                    program, shell_quote(program)));
    throw usage_error(fmt::format("'{}' is not a heddle test binary (it does not link heddle::main, so it was not "
                                  "run: a plain GoogleTest binary would run its whole suite); link heddle::main "
                                  "(README.md), or run a program with `heddle run -- {}`",
                                  program, shell_quote(program)));
  }
  temp_file out("list");
  temp_file err("list-err");
  const exit_status status = run_process(program, {program, "--heddle_list"}, {out.fd(), err.fd()});
  if (status.signaled() || status.code != 0) {
    const std::string why = status.signaled() ? fmt::format("died of {}", signal_name(status.signal))
                                              : fmt::format("exited with status {}", status.code);
    const std::string said = first_line(err.read());
    throw usage_error(fmt::format("'{}' is not a heddle test binary: --heddle_list {}{}{}", program, why,
                                  said.empty() ? "" : ": ", said));
  }
  std::vector<listed_test> tests;
  std::istringstream lines(out.read());
  for (std::string line; std::getline(lines, line);) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos || tab == 0)
      throw usage_error(fmt::format("'{}' is not a heddle test binary: --heddle_list printed '{}'", program,
                                    first_line(line)));
    tests.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return tests;
}

bool filter_selects(std::string_view filter, std::string_view test) {
  const auto dash = filter.find('-');
  const std::string_view positive = filter.substr(0, dash);
  const std::string_view negative = dash == std::string_view::npos ? std::string_view{} : filter.substr(dash + 1);
  if (!positive.empty() && !any_matches(positive, test)) return false;
  return negative.empty() || !any_matches(negative, test);
}

std::string shell_quote(const std::string& text) {
  if (!text.empty() && text.find_first_of(" \t\n'\"\\$`*?[]{}()<>|;&!#~") == std::string::npos) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string first_line(std::string_view text) {
  while (!text.empty() && (text.front() == '\n' || text.front() == '\r')) text.remove_prefix(1);
  return std::string(text.substr(0, text.find_first_of("\r\n")));
}

}  // namespace heddle::cli
