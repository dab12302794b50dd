// Pinning the calling thread to one CPU for the duration of a scope.
//
// The issue measures some figures "on one core": a controlled iteration runs all
// its operations on one OS thread, and pinning it keeps the scheduler from
// migrating that thread mid-measurement. The previous affinity is restored on
// exit, so benchmarks that follow (the unpinned hand-offs) are not affected.
#pragma once

#include <sched.h>

namespace heddle::bench {

class pinned_to_cpu {
 public:
  // Pins to `cpu`, or to the CPU the thread runs on now when `cpu` is negative.
  explicit pinned_to_cpu(int cpu = -1) {
    ok_ = ::sched_getaffinity(0, sizeof previous_, &previous_) == 0;
    if (cpu < 0) cpu = ::sched_getcpu();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu < 0 ? 0 : cpu, &one);
    ok_ = ok_ && ::sched_setaffinity(0, sizeof one, &one) == 0;
    cpu_ = cpu;
  }
  ~pinned_to_cpu() {
    if (ok_) ::sched_setaffinity(0, sizeof previous_, &previous_);
  }
  pinned_to_cpu(const pinned_to_cpu&) = delete;
  pinned_to_cpu& operator=(const pinned_to_cpu&) = delete;

  bool ok() const noexcept { return ok_; }
  int cpu() const noexcept { return cpu_; }

 private:
  cpu_set_t previous_{};
  bool ok_ = false;
  int cpu_ = 0;
};

// The number of CPUs this process may run on.
inline int usable_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

}  // namespace heddle::bench
