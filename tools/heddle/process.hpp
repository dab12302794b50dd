// Running a test binary as a child process, and the temporary files the CLI
// hands to it.
//
// Contract: run_process() starts `program` with `args` (argv[0] is the
// program), waits for it, and says whether it exited (with which status) or
// died of a signal. The child's stdout and stderr go to the given descriptors,
// or to the CLI's own when none are given. A program that cannot be started is
// a heddle::usage_error (exit 2) naming the program and the reason.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace heddle::cli {

struct exit_status {
  int code = 0;    // the exit status, when the child exited
  int signal = 0;  // the signal that ended the child, 0 when it exited
  bool timed_out = false;  // run_process killed it (SIGKILL) at its time limit
  bool signaled() const noexcept { return signal != 0; }
};

struct redirections {
  int out = -1;  // descriptor for the child's stdout; -1 keeps ours
  int err = -1;  // descriptor for the child's stderr; -1 keeps ours
};

// A positive `limit` kills the child (SIGKILL) when it runs longer, on the
// clock of runner/hang_clock.hpp (a child waiting for a CPU is not late).
exit_status run_process(const std::string& program, const std::vector<std::string>& args,
                        redirections to = {}, std::chrono::milliseconds limit = {});

// "SIGSEGV", "SIGABRT", ... or "signal N".
std::string signal_name(int signal);

// A file under $TMPDIR (or /tmp), created empty and removed on destruction.
class temp_file {
 public:
  explicit temp_file(const std::string& stem);
  ~temp_file();
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;

  const std::string& path() const noexcept { return path_; }
  int fd() const noexcept { return fd_; }
  // The whole content, as written so far by anyone.
  std::string read() const;

 private:
  std::string path_;
  int fd_ = -1;
};

// A directory under $TMPDIR (or /tmp), removed with its content on destruction.
class temp_directory {
 public:
  explicit temp_directory(const std::string& stem);
  ~temp_directory();
  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;

  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

}  // namespace heddle::cli
