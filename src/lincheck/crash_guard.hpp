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
//
// Two other ways a crash can go, instead of being printed: with a handover
// (crash_minimize.hpp), the handler first gives the crash to a standby
// process that reproduces, minimizes and reports it, and prints nothing of
// its own when that one did; with a note (a run in a process of its own, made
// to crash), it only fills the note in shared memory.
#pragma once

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lincheck/execution.hpp"
#include "runner/crash_guard.hpp"

namespace heddle::lincheck::detail {

using heddle::detail::signal_description;  // runner/crash_guard.hpp

// How a run died, as the handler saw it; `signal` is written last.
struct crash_note {
  std::atomic<int> signal{0};
  std::size_t thread = no_thread;  // 0: the sequential parts, t+1: thread t
  std::size_t call = no_actor;     // actor id of the call it was in, or no_actor
};

// What check() had done when the crash came, for the test's record.
struct crash_counts {
  std::uint64_t runs = 0;  // begun, all scenarios together (the crashing one too)
  std::uint64_t steps = 0;  // decisions of the runs that finished
  std::uint64_t atomic_steps = 0;
  std::uint64_t memory_steps = 0;
  double seconds = 0;  // since check() began
};

// Takes a crash over from the handler of the process that is dying of it.
class crash_handover {
 public:
  // Async-signal-safe. `exec` has the run in flight (its scenario, which may
  // be a minimization candidate of generated scenario `scenario_index`, and
  // its decisions so far). True when the crash was reported by someone else.
  virtual bool hand_over(std::size_t scenario_index, int sig, const crash_counts& counts,
                         const executor& exec) noexcept = 0;

 protected:
  ~crash_handover() = default;
};

class crash_guard {
 public:
  // `test`: "suite.name" under HEDDLE_LINCHECK_TEST, empty from check();
  // `result_file`: where `heddle test` collects records (empty: none).
  // With `note`, a crash only fills it (see above).
  crash_guard(const executor& exec, const lincheck::options& opts, std::string test, std::string result_file,
              crash_note* note = nullptr);
  ~crash_guard();
  crash_guard(const crash_guard&) = delete;
  crash_guard& operator=(const crash_guard&) = delete;

  // Before the runs of generated scenario `index` (minimization keeps its
  // calls' ids, so the texts stay right for its candidates).
  void enter_scenario(std::size_t index, const scenario& sc);
  // Hands a crash over to `h`, with the counts of `totals` (check()'s result
  // so far) and the time since `started`.
  void hand_over_to(crash_handover* h, const result* totals, std::chrono::steady_clock::time_point started) {
    handover_ = h;
    totals_ = totals;
    started_ = started;
  }
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
  crash_note* note_ = nullptr;
  crash_handover* handover_ = nullptr;
  const result* totals_ = nullptr;
  std::chrono::steady_clock::time_point started_;
  std::size_t scenario_index_ = 0;
};

}  // namespace heddle::lincheck::detail
