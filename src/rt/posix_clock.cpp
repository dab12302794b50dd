// clock_gettime, gettimeofday, time, clock and C11's timespec_get under
// control read virtual
// time, so that a program whose path depends on a clock (a timeout it checks,
// a seed it takes from the time, a value it hashes) follows its trace on
// replay. A reading is
//
//   base of the clock + the engine's virtual time + 1 microsecond per reading
//
// in the iteration so far. The bases are the real clocks the fork server read
// once per run; each trace records them, and a replay starts from the same
// ones. Virtual time moves at sleeps and timeouts (posix_sleep.cpp, timed
// waits), which cost no real time; the microsecond per reading keeps every
// clock strictly increasing between two readings, so a loop that spins until
// a deadline ends, and elapsed times are never zero. All of it depends only
// on the schedule, which the trace fixes. Outside control (before main, in
// the fork server, in threads heddle does not run) the C library's clocks
// answer. CPU-time clocks count the same way from zero. Timed waits turn an
// absolute time the program computed from these readings back into a virtual
// deadline (deadline_at in pthread_runtime.cpp reads the same clock).
#include "rt/posix_clock.hpp"

#include <sys/time.h>

#include <ctime>

#include "backends/real.hpp"
#include "heddle/model.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {
namespace {

constexpr std::int64_t nanos_per_reading = 1000;

clock_bases bases;
bool bases_set = false;
// Readings in the running iteration; reset when a new iteration starts
// (in process, iterations share the process).
std::uint64_t readings = 0;
std::uint32_t readings_epoch = 0;

std::int64_t real_ns(clockid_t clock) noexcept {
  timespec t{};
  HEDDLE_REAL(clock_gettime)(clock, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

void set_clock_bases(const clock_bases& b) noexcept {
  bases = b;
  bases_set = true;
}

clock_bases current_clock_bases() noexcept {
  if (!bases_set) set_clock_bases({real_ns(CLOCK_REALTIME), real_ns(CLOCK_MONOTONIC)});
  return bases;
}

bool virtual_reading(clockid_t clock, std::int64_t& ns) noexcept {
  std::int64_t base = 0;
  switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_TAI:
      base = current_clock_bases().realtime_ns;
      break;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
      base = current_clock_bases().monotonic_ns;
      break;
    case CLOCK_PROCESS_CPUTIME_ID:
    case CLOCK_THREAD_CPUTIME_ID:
      break;
    default:
      return false;
  }
  if (readings_epoch != detail::control.epoch) {
    readings_epoch = detail::control.epoch;
    readings = 0;
  }
  ++readings;
  ns = base + heddle::now() + static_cast<std::int64_t>(readings) * nanos_per_reading;
  return true;
}

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, clock_gettime, (clockid_t clock, timespec* t)) {
  std::int64_t ns = 0;
  if (t == nullptr || !controlled() || !heddle::rt::virtual_reading(clock, ns))
    return HEDDLE_REAL(clock_gettime)(clock, t);
  t->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  t->tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return 0;
}

HEDDLE_RT_DEFINE(int, gettimeofday, (timeval* tv, void* zone)) {
  std::int64_t ns = 0;
  if (tv == nullptr || !controlled() || !heddle::rt::virtual_reading(CLOCK_REALTIME, ns))
    return HEDDLE_REAL(gettimeofday)(tv, zone);
  tv->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  tv->tv_usec = static_cast<suseconds_t>(ns % 1'000'000'000 / 1000);
  return 0;
}

HEDDLE_RT_DEFINE(time_t, time, (time_t* out)) {
  std::int64_t ns = 0;
  if (!controlled() || !heddle::rt::virtual_reading(CLOCK_REALTIME, ns)) return HEDDLE_REAL(time)(out);
  const auto seconds = static_cast<time_t>(ns / 1'000'000'000);
  if (out != nullptr) *out = seconds;
  return seconds;
}

// C11's clock (glibc's reads the real clock inside the C library, past the
// interposer of clock_gettime). A C11 program computes the deadline of
// mtx_timedlock and cnd_timedwait with it: read from the real clock, once a
// timeout had moved virtual time on, every such deadline lay in the virtual
// past and every timed wait timed out at once (a C11 program's wait loop
// ran to --max-steps in 47 of 50 iterations; third-party audit, 2026-11-29).
HEDDLE_RT_DEFINE(int, timespec_get, (timespec * t, int base)) {
  std::int64_t ns = 0;
  if (t == nullptr || base != TIME_UTC || !controlled() || !heddle::rt::virtual_reading(CLOCK_REALTIME, ns))
    return HEDDLE_REAL(timespec_get)(t, base);
  t->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  t->tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return base;
}

HEDDLE_RT_DEFINE(clock_t, clock, ()) {
  std::int64_t ns = 0;
  if (!controlled() || !heddle::rt::virtual_reading(CLOCK_PROCESS_CPUTIME_ID, ns)) return HEDDLE_REAL(clock)();
  return static_cast<clock_t>(ns / (1'000'000'000 / CLOCKS_PER_SEC));
}
