// posix_spawn rather than fork: the CLI is small, but posix_spawn reports an
// exec failure (ENOENT, EACCES, ENOEXEC) as a return value, so a binary that
// cannot run becomes one clear line instead of a child that exits 127.
#include "process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heddle/explore.hpp"
#include "runner/hang_clock.hpp"

extern char** environ;

namespace heddle::cli {
namespace {

// The child run_process waits for; SIGTERM sent to the CLI alone (a `timeout`
// around heddle, a job runner) goes on to it, which stops cleanly and reports,
// and the CLI then says what happened.
volatile pid_t waited_child = 0;
void forward_sigterm(int) {
  if (waited_child > 0) ::kill(waited_child, SIGTERM);
}

}  // namespace

exit_status run_process(const std::string& program, const std::vector<std::string>& args,
                        redirections to, std::chrono::milliseconds limit) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (to.out >= 0) posix_spawn_file_actions_adddup2(&actions, to.out, STDOUT_FILENO);
  if (to.err >= 0) posix_spawn_file_actions_adddup2(&actions, to.err, STDERR_FILENO);
  // Like system(): while the child runs, Ctrl-C is the child's to handle, so
  // the CLI lives on to clean up and say what happened.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  struct sigaction ignore{}, forward{}, saved_int{}, saved_quit{}, saved_term{};
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = &forward_sigterm;
  forward.sa_flags = SA_RESTART;
  sigemptyset(&forward.sa_mask);
  ::sigaction(SIGINT, &ignore, &saved_int);
  ::sigaction(SIGQUIT, &ignore, &saved_quit);
  ::sigaction(SIGTERM, nullptr, &saved_term);  // what restore() puts back, whatever happens
  const auto restore = [&] {
    waited_child = 0;
    ::sigaction(SIGINT, &saved_int, nullptr);
    ::sigaction(SIGQUIT, &saved_quit, nullptr);
    ::sigaction(SIGTERM, &saved_term, nullptr);
  };

  pid_t child = 0;
  const int failed = ::posix_spawn(&child, program.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) {
    restore();
    throw usage_error(fmt::format("cannot run '{}': {}", program, std::strerror(failed)));
  }
  waited_child = child;
  ::sigaction(SIGTERM, &forward, &saved_term);

  int status = 0;
  bool timed_out = false;
  // Wall time while the child is blocked, its CPU time while it runs: a
  // child waiting for a CPU on a loaded machine has not run out of time.
  detail::hang_clock watch(limit);
  watch.restart(child, detail::hang_clock::clock::now());
  for (;;) {
    // With a limit, poll: a child that does not end by the deadline is killed.
    const bool polling = limit.count() > 0 && !timed_out;
    const pid_t ended = ::waitpid(child, &status, polling ? WNOHANG : 0);
    if (ended == child) break;
    if (ended < 0 && errno != EINTR) {
      restore();
      throw std::runtime_error(fmt::format("waitpid failed: {}", std::strerror(errno)));
    }
    if (ended == 0 && watch.expired(detail::hang_clock::clock::now())) {
      ::kill(child, SIGKILL);
      timed_out = true;
    } else if (ended == 0) {
      const timespec pause{0, 2'000'000};
      ::nanosleep(&pause, nullptr);
    }
  }
  restore();
  if (WIFSIGNALED(status)) return {0, WTERMSIG(status), timed_out};
  return {WEXITSTATUS(status), 0, timed_out};
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
