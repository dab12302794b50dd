// posix_spawn rather than fork: the CLI is small, but posix_spawn reports an
// exec failure (ENOENT, EACCES, ENOEXEC) as a return value, so a binary that
// cannot run becomes one clear line instead of a child that exits 127.
#include "process.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heddle/explore.hpp"

extern char** environ;

namespace heddle::cli {

exit_status run_process(const std::string& program, const std::vector<std::string>& args,
                        redirections to) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (to.out >= 0) posix_spawn_file_actions_adddup2(&actions, to.out, STDOUT_FILENO);
  if (to.err >= 0) posix_spawn_file_actions_adddup2(&actions, to.err, STDERR_FILENO);
  pid_t child = 0;
  const int failed = ::posix_spawn(&child, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) throw usage_error(fmt::format("cannot run '{}': {}", program, std::strerror(failed)));

  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid failed: {}", std::strerror(errno)));
  }
  if (WIFSIGNALED(status)) return {0, WTERMSIG(status)};
  return {WEXITSTATUS(status), 0};
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
  }
  return fmt::format("signal {}", signal);
}

namespace {
std::string temp_pattern(const std::string& stem) {
  const char* dir = std::getenv("TMPDIR");
  return fmt::format("{}/heddle-{}-XXXXXX", dir != nullptr && *dir != '\0' ? dir : "/tmp", stem);
}
}  // namespace

temp_file::temp_file(const std::string& stem) {
  std::string pattern = temp_pattern(stem);
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot create a temporary file: {}", std::strerror(errno)));
  path_ = std::move(pattern);
}

temp_file::~temp_file() {
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
}

std::string temp_file::read() const {
  std::ifstream in(path_, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

temp_directory::temp_directory(const std::string& stem) {
  std::string pattern = temp_pattern(stem);
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
  path_ = std::move(pattern);
}

temp_directory::~temp_directory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace heddle::cli
