// lincheck's guard against a fatal signal inside a run (a segfault in the
// object under test, a failed assert(), a stack overflow in a thread's fiber).
//
// Contract: while a guard lives, SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT
// are caught on an alternate stack. The handler prints, on stderr, which
// signal, in which scenario and run, in which call of which thread, the
// scenario, and how to run it again; under `heddle test` (a result file) it
// also appends the test's result record, status "crash", so the CLI reports the
// crash with that message. Then the signal is raised again with its default
// action: the process still dies of it. The handler neither allocates nor
// locks: everything it prints about a scenario is formatted when the scenario
// starts, into buffers reserved up front.
#pragma once

#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lincheck/execution.hpp"

namespace heddle::lincheck::detail {

class crash_guard {
 public:
  // `test`: "suite.name" under HEDDLE_LINCHECK_TEST, empty from check();
  // `result_file`: where `heddle test` collects records (empty: none).
  crash_guard(const executor& exec, const lincheck::options& opts, std::string test, std::string result_file);
  ~crash_guard();
  crash_guard(const crash_guard&) = delete;
  crash_guard& operator=(const crash_guard&) = delete;

  // Before the runs of generated scenario `index` (minimization keeps its
  // calls' ids, so the texts stay right for its candidates).
  void enter_scenario(std::size_t index, const scenario& sc);
  // The signal handler's work; public for the C-level trampoline only.
  void on_fatal_signal(int sig) noexcept;

 private:
  const executor& exec_;
  const lincheck::options& opts_;
  std::string test_;
  std::string result_file_;
  // Formatted by enter_scenario(): the scenario's part of the message, and of
  // the JSON record (escaped); each call's text by actor id, plain and escaped.
  std::string where_;
  std::string where_json_;
  std::string details_;
  std::string details_json_;
  std::vector<std::string> calls_;
  std::vector<std::string> calls_json_;
  std::uint64_t first_run_ = 0;  // exec_.runs_started() when the scenario began
  std::unique_ptr<char[]> buffer_;
  std::size_t buffer_size_ = 0;
  std::vector<char> alternate_stack_;
  stack_t previous_stack_{};
  struct sigaction previous_[5]{};
  crash_guard* previous_guard_ = nullptr;
};

}  // namespace heddle::lincheck::detail
