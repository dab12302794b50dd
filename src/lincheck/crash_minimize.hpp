// A crashing scenario reproduced, minimized, reported and saved by a process
// that does not die with it.
//
// check() starts a standby process (a fork, idle on a pipe) before its first
// scenario: a copy of the process as it was before any scenario ran. When a
// run dies of a fatal signal, the crash guard's handler hands the crash over
// through shared memory (the generated scenario's index, the signal, the
// crashed run's calls as that scenario's actor ids and its decisions so far,
// copied without allocating) and a byte through the pipe, and waits for the
// answer. The standby regenerates the scenario from the seed, keeps the
// crashed run's calls (it may have been a minimization candidate of a
// non-crash failure), and runs it in a process of its own, following the
// handed-over decisions first and exploring from the scenario's seed next, to
// reproduce the crash and record its decisions; then it shrinks it as minimize() shrinks a
// failure (scenario.hpp's removals(): the crashing schedule followed first,
// fresh schedules next), each candidate in a process of its own, kept when
// it dies of the same signal. The smallest scenario is reported with its
// interleaving up to the crash (one more process follows its decisions and
// stops before the last one), saved as a trace (crash_trace.hpp) when the
// test has a name and an output directory, and recorded for `heddle test`;
// then the standby answers, and the crashed process dies of its signal.
//
// Contract: without a crash, the standby costs one fork (about 0.4 ms of CPU,
// docs/performance.md); it is killed when check() ends, and exits on its own
// if the process dies (its pipe closes). A killed standby is reaped by the
// next check(), which does not wait for the kill to land. When the crash does not come
// back in a process of its own (a crash that depends on more than the
// scenario and the schedule), the standby says no and the guard reports the
// crash as it always did.
// Minimization stops after `time_limit`; an attempt still running then is
// killed. The crashed process waits for all of it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "heddle/lincheck.hpp"
#include "lincheck/crash_guard.hpp"
#include "lincheck/crash_trace.hpp"

namespace heddle::detail {
class shared_region;
}

namespace heddle::lincheck::detail {

class crash_supervisor final : public crash_handover {
 public:
  // Forks the standby. `d` must outlive the supervisor.
  crash_supervisor(const declaration& d, crash_destination where,
                   std::chrono::milliseconds time_limit = std::chrono::seconds(10));
  ~crash_supervisor();
  crash_supervisor(const crash_supervisor&) = delete;
  crash_supervisor& operator=(const crash_supervisor&) = delete;

  bool hand_over(std::size_t scenario_index, int sig, const crash_counts& counts,
                 const executor& exec) noexcept override;

  struct shared_state;

 private:
  [[noreturn]] void serve(int requests, int replies);

  const declaration& declaration_;
  crash_destination where_;
  std::chrono::milliseconds time_limit_;
  std::unique_ptr<heddle::detail::shared_region> region_;
  shared_state* shared_ = nullptr;
  int standby_ = -1;   // its pid; -1: no standby (fork failed)
  int requests_ = -1;  // write end: the crash, one byte
  int replies_ = -1;   // read end: the standby's answer, one byte
};

}  // namespace heddle::lincheck::detail
