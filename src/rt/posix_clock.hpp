// Clocks on virtual time (DESIGN.md section 4), for programs under heddle run.
// See posix_clock.cpp.
#pragma once

#include <time.h>

#include <cstdint>

namespace heddle::rt {

// Where the program's clocks start: the real times the fork server read once
// for the run (or a replay read from its trace), in nanoseconds. Set before
// the first child is forked; a process that never sets them (a test binary
// run in process) reads the real clocks once, at the first controlled read.
struct clock_bases {
  std::int64_t realtime_ns = 0;
  std::int64_t monotonic_ns = 0;
};
void set_clock_bases(const clock_bases& bases) noexcept;
clock_bases current_clock_bases() noexcept;

// The program's reading of `clock` under control, in nanoseconds; false for a
// clock that is not virtual (a CPU-time clock of another process, an fd's
// dynamic clock), which the program reads for real.
bool virtual_reading(clockid_t clock, std::int64_t& ns) noexcept;

}  // namespace heddle::rt
