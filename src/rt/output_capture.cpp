// See output_capture.hpp.
#include "rt/output_capture.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace heddle::rt {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

output_capture::output_capture() : fd_(::memfd_create("heddle-output", MFD_CLOEXEC)) {
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot create the output capture: {}", std::strerror(errno)));
}

output_capture::~output_capture() { ::close(fd_); }

void output_capture::clear() {
  (void)!::ftruncate(fd_, 0);
  ::lseek(fd_, 0, SEEK_SET);
}

void output_capture::redirect_here() {
  ::dup2(fd_, STDOUT_FILENO);
  ::dup2(fd_, STDERR_FILENO);
}

std::string output_capture::text() const {
  std::string out;
  char buffer[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd_, buffer, sizeof buffer, at);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  return out;
}

std::string output_capture::last_line_with(std::string_view part) const {
  const std::string all = text();
  std::string_view with, non_empty;
  for (std::string_view line : split_lines(all)) {
    if (!line.empty()) non_empty = line;
    if (line.find(part) != std::string_view::npos) with = line;
  }
  return std::string(with.empty() ? non_empty : with);
}

std::string output_capture::tail_section(std::size_t count) const {
  const std::string all = text();
  const std::vector<std::string_view> lines = split_lines(all);
  if (lines.empty()) return {};
  const std::size_t first = lines.size() > count ? lines.size() - count : 0;
  std::string r = fmt::format("\n  output of the iteration ({} of {} line(s) of stdout and stderr):\n",
                              lines.size() - first, lines.size());
  for (std::size_t i = first; i < lines.size(); ++i) r += fmt::format("    | {}\n", lines[i]);
  return r;
}

}  // namespace heddle::rt
