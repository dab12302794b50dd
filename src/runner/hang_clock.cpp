// See hang_clock.hpp.
#include "runner/hang_clock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>

namespace heddle::detail {
namespace {

// The state letter of one /proc/PID/task/TID/stat line ("tid (comm) S ...";
// comm may hold spaces and parentheses, so the state follows the last ')').
char thread_state(const char* stat_path) {
  const int fd = ::open(stat_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return '\0';
  char line[512];
  const ssize_t n = ::read(fd, line, sizeof line - 1);
  ::close(fd);
  if (n <= 0) return '\0';
  line[n] = '\0';
  const char* close = std::strrchr(line, ')');
  return close != nullptr && close[1] == ' ' ? close[2] : '\0';
}

std::uint64_t cpu_nanoseconds(pid_t pid, bool& known) {
  clockid_t id{};
  timespec t{};
  known = ::clock_getcpuclockid(pid, &id) == 0 && ::clock_gettime(id, &t) == 0;
  return known ? static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec) : 0;
}

}  // namespace

process_cpu sample_process_cpu(pid_t pid) {
  process_cpu s;
  s.cpu_ns = cpu_nanoseconds(pid, s.known);
  if (!s.known) return s;
  char path[320];  // "/proc/PID/task/NAME/stat", NAME at most 255 bytes
  std::snprintf(path, sizeof path, "/proc/%d/task", static_cast<int>(pid));
  DIR* tasks = ::opendir(path);
  if (tasks == nullptr) {
    s.known = false;
    return s;
  }
  while (const dirent* entry = ::readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::snprintf(path, sizeof path, "/proc/%d/task/%s/stat", static_cast<int>(pid), entry->d_name);
    if (thread_state(path) == 'R') {
      s.runnable = true;
      break;
    }
  }
  ::closedir(tasks);
  return s;
}

void hang_clock::restart(pid_t pid, clock::time_point at) noexcept {
  pid_ = pid;
  since_ = at;
  sampled_ = false;
}

bool hang_clock::expired(clock::time_point now) {
  const auto waited = now - since_;
  if (waited < limit_ / 2) return false;
  if (!sampled_) {
    sampled_ = true;
    cpu_at_half_ = sample_process_cpu(pid_).cpu_ns;
  }
  if (waited < limit_) return false;
  if (waited >= limit_ * starved_factor) return true;
  const process_cpu s = sample_process_cpu(pid_);
  if (!s.known || !s.runnable) return true;  // blocked: wall time is the program's
  // Runnable: a loop if it got the CPU, starved by other processes if not.
  return std::chrono::nanoseconds(s.cpu_ns - cpu_at_half_) >= limit_ / 4;
}

}  // namespace heddle::detail
