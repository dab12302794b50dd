// The clock a child process's hang is judged by (--iteration-timeout).
//
// A hang is the program's: a loop that never reaches a scheduling point, or a
// wait heddle does not control. It is not the machine's. On a loaded machine
// a child that is ready to run may wait seconds for a CPU, and a wall clock
// alone would then call a correct program hung. So time passes on this clock
// while the child is blocked (every thread asleep in the kernel: wall time,
// a read() that never returns) or while it runs (its CPU time, a loop), not
// while it waits for a CPU that other processes hold:
//
// - before `limit` of wall time since the last progress, never expired;
// - then, if no thread of the child is runnable, expired (blocked);
// - if one is, expired once the child has used a quarter of `limit` in CPU
//   time since half the limit had passed (it is running, not waiting for a
//   CPU: a loop takes a full CPU, so on an idle machine this is at `limit`);
// - and expired at `starved_factor` times `limit` of wall time whatever it
//   does, so that a starved loop still ends.
//
// The child's state is read from /proc only once half the limit has passed
// without progress: an iteration that makes progress costs nothing here.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>

namespace heddle::detail {

class hang_clock {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr int starved_factor = 30;

  explicit hang_clock(std::chrono::nanoseconds limit) : limit_(limit) {}

  // The child `pid` made progress at `at` (or started then).
  void restart(pid_t pid, clock::time_point at) noexcept;
  // Whether the limit has passed on this clock since the last restart.
  bool expired(clock::time_point now);

 private:
  std::chrono::nanoseconds limit_;
  pid_t pid_ = -1;
  clock::time_point since_{};
  bool sampled_ = false;  // cpu_at_half_ is known
  std::uint64_t cpu_at_half_ = 0;  // the child's CPU time (ns) then
};

// The CPU time every thread of `pid` has used, and whether one of its
// threads is runnable (running, or ready and waiting for a CPU).
struct process_cpu {
  std::uint64_t cpu_ns = 0;
  bool runnable = false;
  bool known = false;  // false: the process is gone or /proc is not there
};
process_cpu sample_process_cpu(pid_t pid);

}  // namespace heddle::detail
