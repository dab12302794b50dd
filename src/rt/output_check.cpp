// See output_check.hpp.
#include "rt/output_check.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "rt/output_capture.hpp"

extern char** environ;

namespace heddle::rt {
namespace {

// The fork server's environment without heddle in it: the check (and what it
// starts) must not become a fork server or load the runtime.
std::vector<std::string> check_environment() {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("HEDDLE_")) continue;
    if (entry.starts_with("LD_PRELOAD=")) {
      std::string kept;
      std::string_view rest = entry.substr(std::string_view("LD_PRELOAD=").size());
      while (!rest.empty()) {
        const auto end = rest.find(':');
        const std::string_view part = rest.substr(0, end);
        if (!part.empty() && part.find("libheddle-rt") == std::string_view::npos)
          kept += (kept.empty() ? "" : ":") + std::string(part);
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + 1);
      }
      if (!kept.empty()) out.push_back("LD_PRELOAD=" + kept);
      continue;
    }
    out.emplace_back(entry);
  }
  return out;
}

std::string last_line(int fd) {
  std::string text;
  char buffer[4096];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const auto start = text.rfind('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
}

}  // namespace

std::optional<std::string> failed_output_check(const std::string& command, const output_capture& output) {
  // A new open file description: the memfd's own offset is where the child
  // stopped writing.
  const int input = ::open(fmt::format("/proc/self/fd/{}", output.fd()).c_str(), O_RDONLY | O_CLOEXEC);
  const int said = ::memfd_create("heddle-check", MFD_CLOEXEC);
  if (input < 0 || said < 0) {
    if (input >= 0) ::close(input);
    return fmt::format("could not be started: {}", std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, said, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, said, STDERR_FILENO);
  std::vector<std::string> environment = check_environment();
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh", dash_c = "-c", text = command;
  char* argv[] = {sh.data(), dash_c.data(), text.data(), nullptr};
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, "/bin/sh", &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(input);
  std::optional<std::string> failure;
  if (error != 0) {
    failure = fmt::format("could not be started: {}", std::strerror(error));
  } else {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      const std::string line = last_line(said);
      failure = WIFEXITED(status) ? fmt::format("exited with status {}", WEXITSTATUS(status))
                                  : fmt::format("died of signal {}", WTERMSIG(status));
      if (!line.empty()) *failure += ": " + line;
    }
  }
  ::close(said);
  return failure;
}

}  // namespace heddle::rt
