// Sleeping and yielding under control, on virtual time: sleep, usleep,
// nanosleep and clock_nanosleep (relative or TIMER_ABSTIME on any clock) are
// sleep points that cost no real time; the strategy decides when the sleeper
// runs again, and virtual time jumps to its deadline then. sched_yield is a
// sleep of zero: strategies take a sleep as "let another operation run" (pct
// demotes the sleeper, pos gives it a low priority, random and the rest choose
// evenly), so a spin loop that yields or sleeps makes progress.
// The sleeps are cancellation points on entry and when they return. poll()
// with no descriptors and select() with no sets, sleeps in disguise, are too.
//
// The program's clocks read virtual time too (posix_clock.cpp), and a deadline
// it computes from them is turned into a virtual one by its distance from now.
#include <poll.h>
#include <sched.h>
#include <sys/select.h>
#include <unistd.h>

#include <cerrno>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

void sleep_to(virtual_time deadline) {
  signal_delivery_point();
  cancellation_point();
  sleep_until(deadline, {});
  cancellation_point();
}

timespec from_nanos(std::int64_t ns) {
  return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

}  // namespace

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, sched_yield, ()) {
  if (!controlled()) return HEDDLE_REAL(sched_yield)();
  heddle::rt::signal_delivery_point();  // a thread that spins until a handler sets its flag
  // A zero sleep, not a yield point: strategies let a sleeping operation's
  // rivals run first (pct, pos), and a program that calls sched_yield is
  // waiting for another thread.
  heddle::sleep_until(heddle::now(), {});
  return 0;
}

HEDDLE_RT_DEFINE(unsigned, sleep, (unsigned seconds)) {
  if (!controlled()) return HEDDLE_REAL(sleep)(seconds);
  heddle::rt::sleep_to(heddle::rt::deadline_after({static_cast<time_t>(seconds), 0}));
  return 0;
}

HEDDLE_RT_DEFINE(int, usleep, (useconds_t micros)) {
  if (!controlled()) return HEDDLE_REAL(usleep)(micros);
  heddle::rt::sleep_to(heddle::rt::deadline_after(heddle::rt::from_nanos(std::int64_t{micros} * 1000)));
  return 0;
}

HEDDLE_RT_DEFINE(int, nanosleep, (const struct timespec* request, struct timespec* remaining)) {
  if (!controlled()) return HEDDLE_REAL(nanosleep)(request, remaining);
  if (heddle::rt::invalid(*request) || request->tv_sec < 0) {
    errno = EINVAL;
    return -1;
  }
  heddle::rt::sleep_to(heddle::rt::deadline_after(*request));
  if (remaining != nullptr) *remaining = {};
  return 0;
}

HEDDLE_RT_DEFINE(int, clock_nanosleep,
                 (clockid_t clock, int flags, const struct timespec* request, struct timespec* remaining)) {
  if (!controlled()) return HEDDLE_REAL(clock_nanosleep)(clock, flags, request, remaining);
  if (heddle::rt::invalid(*request) || request->tv_sec < 0) return EINVAL;
  const bool absolute = (flags & TIMER_ABSTIME) != 0;
  heddle::rt::sleep_to(absolute ? heddle::rt::deadline_at(clock, *request) : heddle::rt::deadline_after(*request));
  if (remaining != nullptr && !absolute) *remaining = {};
  return 0;
}

HEDDLE_RT_DECLARE(int, pause, ());  // posix_signals.cpp

// poll() with no descriptors and select() with no sets are how many programs
// sleep for a few milliseconds in a wait loop (liburcu waits for its readers
// with poll(NULL, 0, 1)): a virtual sleep, as nanosleep. With descriptors they
// wait as posix_descriptors.cpp says.
HEDDLE_RT_DEFINE(int, poll, (struct pollfd * fds, nfds_t count, int timeout)) {
  if (!controlled()) return HEDDLE_REAL(poll)(fds, count, timeout);
  if (count != 0) return heddle::rt::wait_on_poll(fds, count, timeout);
  if (timeout < 0) return heddle_rt_pause();  // nothing ends it but a signal, then EINTR
  heddle::rt::sleep_to(heddle::rt::deadline_after(heddle::rt::from_nanos(std::int64_t{timeout} * 1'000'000)));
  return 0;
}

HEDDLE_RT_DEFINE(int, select, (int count, fd_set* read, fd_set* write, fd_set* except, struct timeval* timeout)) {
  if (!controlled() || (count == 0 && timeout == nullptr))
    return HEDDLE_REAL(select)(count, read, write, except, timeout);
  if (count != 0) {
    if (timeout != nullptr && (timeout->tv_sec < 0 || timeout->tv_usec < 0 || timeout->tv_usec >= 1'000'000)) {
      errno = EINVAL;
      return -1;
    }
    const std::int64_t ms =
        timeout == nullptr ? -1 : std::int64_t{timeout->tv_sec} * 1000 + (timeout->tv_usec + 999) / 1000;
    const int ready = heddle::rt::wait_on_select(count, read, write, except, ms);
    if (timeout != nullptr) *timeout = {};  // the time left is not kept on virtual time
    return ready;
  }
  if (timeout->tv_sec < 0 || timeout->tv_usec < 0 || timeout->tv_usec >= 1'000'000) {
    errno = EINVAL;
    return -1;
  }
  heddle::rt::sleep_to(heddle::rt::deadline_after({timeout->tv_sec, timeout->tv_usec * 1000}));
  timeout->tv_sec = 0;  // Linux's select leaves the time not slept
  timeout->tv_usec = 0;
  return 0;
}
