// Keeps a crashing iteration's schedule. While explore() runs, fatal signals
// (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) are caught on an alternate stack;
// the handler writes the in-flight trace, with the crash as its bug, as a
// compact trace file under --out, prints where it is and how to replay it, and
// re-raises the signal. A fault in a fiber's guard page is reported as a stack
// overflow in the running operation. The handler neither allocates nor locks:
// its buffers are reserved up front. In a worker process (runner/workers.hpp)
// the handler only fills a crash_note in shared memory: the parent, which
// has the worker's decisions in a step_log, writes the trace and the report.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "heddle/trace.hpp"
#include "runner/step_log.hpp"

namespace heddle::detail {

// "SIGSEGV (invalid memory access)", ...: how reports name a fatal signal.
const char* signal_description(int signal) noexcept;

class crash_guard {
 public:
  // `directory` is where a crash's schedule is saved; when replaying, pass the
  // trace being replayed as `replaying` instead: nothing new is saved.
  // With `note`, a crash is only described there (see above).
  crash_guard(const engine& e, trace_header header, std::string directory, std::string replaying = {},
              crash_note* note = nullptr);
  ~crash_guard();
  crash_guard(const crash_guard&) = delete;
  crash_guard& operator=(const crash_guard&) = delete;

  void begin_iteration(std::uint64_t index);
  void end_iteration();

  // The signal handler's work; public for the C-level trampoline only.
  void on_fatal_signal(int signal, const void* address) noexcept;

 private:
  const engine& engine_;
  trace_header header_;
  std::string directory_;
  std::string parent_directory_;
  std::string replaying_;
  // The encoded header around the iteration index, which the handler writes
  // between them: encoding once keeps begin_iteration() off the hot path.
  std::string header_before_iteration_;
  std::string header_after_iteration_;
  std::string header_tail_;  // backend and arguments, after the steps
  // Scratch for the encoded trace and its base64 form, reserved up front but
  // not zeroed: pages are only touched (made resident) by a crash.
  std::unique_ptr<char[]> raw_;
  std::size_t raw_size_ = 0;
  std::unique_ptr<char[]> text_;
  std::size_t text_size_ = 0;
  std::vector<char> alternate_stack_;
  crash_guard* previous_ = nullptr;
  crash_note* note_ = nullptr;
  bool active_ = false;
  bool installed_ = false;  // this guard installed the handlers (and restores them)
};

}  // namespace heddle::detail
