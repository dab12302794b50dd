// The futex system call under control: libheddle-rt defines syscall(), and a
// controlled operation's SYS_futex calls run on a model; every other system
// call, and every call outside control, is the C library's syscall().
//
// Who needs it: libstdc++ waits through syscall(SYS_futex, ...) in
// std::future/promise/packaged_task/async (its __atomic_futex_unsigned), in
// C++20 atomic::wait/notify and so in std::latch, std::barrier and
// std::counting_semaphore, in the guard of a function-local static that two
// threads initialize at once, and so does any program that calls futex
// itself. Unmodelled, such a wait blocks the OS thread for real, and nobody
// else runs: the iteration hangs. (glibc's own locks use the system call
// directly, not syscall(), and are modelled at the pthread layer.)
//
// The model (futex(2)): a word's waiters block on a resource keyed by the
// word's address, of kind atomic (the futex word is one). FUTEX_WAIT and FUTEX_WAIT_BITSET are a wait
// point on it; the word is compared with the expected value in the same step
// (only one operation runs at a time), so a wake between the caller's last
// look and its wait is never lost: the wait fails with EAGAIN. A waiter
// leaves by a wake (result 0), by its timeout on virtual time (ETIMEDOUT;
// FUTEX_WAIT's is relative, FUTEX_WAIT_BITSET's absolute on CLOCK_MONOTONIC,
// or CLOCK_REALTIME with FUTEX_CLOCK_REALTIME), or spuriously (result 0, a
// rare choice of the strategy when spurious wake-ups are on, as futex(2)
// allows and as condition variables do). FUTEX_WAKE and FUTEX_WAKE_BITSET are
// a signal point that wakes up to N waiters whose bitset meets the waker's,
// the strategy choosing which, and returns how many it woke; a woken waiter
// sees everything its waker did before the wake (the kernel's futex hash
// lock orders them). FUTEX_PRIVATE_FLAG changes nothing here: one process.
// Other operations (requeue, wake-op, priority inheritance) run as the
// kernel's, with a warning: they would not see the modelled waiters.
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

constexpr std::uint32_t match_any = FUTEX_BITSET_MATCH_ANY;

// One futex word of the running iteration. Waiters whose bitset is
// FUTEX_BITSET_MATCH_ANY (all of them, for every program seen so far) block on
// `res`; waiters with another bitset on a resource per bitset, so that a wake
// can leave them alone when the bitsets do not meet. `res` also carries the
// wait and wake points, so strategies see waiter and waker on one object.
struct futex_word {
  resource res{object_kind::atomic};
  struct queue {
    std::uint32_t bitset;
    resource res{object_kind::atomic};
    explicit queue(std::uint32_t b) : bitset(b) {}
  };
  std::vector<std::unique_ptr<queue>> others;

  const resource& queue_of(std::uint32_t bitset) {
    if (bitset == match_any) return res;
    for (const auto& q : others)
      if (q->bitset == bitset) return q->res;
    return others.emplace_back(std::make_unique<queue>(bitset))->res;
  }
};

side_table<futex_word>& words() {
  static side_table<futex_word> table;
  return table;
}

futex_word& word_at(const void* address) {
  if (futex_word* w = words().find(address)) return *w;
  return words().emplace(address);
}

long fail(int error) {
  errno = error;
  return -1;
}

constexpr std::int64_t nanos_per_second = 1'000'000'000;

long wait(std::uint32_t* address, std::uint32_t expected, const timespec* timeout, bool absolute, clockid_t clock,
          std::uint32_t bitset) {
  if (bitset == 0) return fail(EINVAL);
  if (timeout != nullptr && (timeout->tv_nsec < 0 || timeout->tv_nsec >= nanos_per_second || timeout->tv_sec < 0))
    return fail(EINVAL);
  futex_word& w = word_at(address);
  scheduling_point(point_kind::wait, w.res, {});
  // The comparison and the block are one step: nothing runs in between.
  if (__atomic_load_n(address, __ATOMIC_SEQ_CST) != expected) return fail(EAGAIN);
  std::optional<virtual_time> deadline;
  if (timeout != nullptr) deadline = absolute ? deadline_at(clock, *timeout) : deadline_after(*timeout);
  const resource& q = w.queue_of(bitset);
  if (spurious_wakeups_enabled() && choose_rare(point_kind::wait, w.res, {})) return 0;
  if (!deadline) {
    heddle::wait(q, {});
  } else if (*deadline <= now() || wait_until(q, *deadline, {}) == wake_reason::timeout) {
    return fail(ETIMEDOUT);
  }
  hb_acquire(q);
  return 0;
}

long wake(std::uint32_t* address, std::uint32_t count, std::uint32_t bitset) {
  if (bitset == 0) return fail(EINVAL);
  futex_word& w = word_at(address);
  scheduling_point(point_kind::signal, w.res, {});
  long woken = 0;
  // The queues this wake may take waiters from, and how many each holds now.
  std::vector<const resource*> queues;
  while (static_cast<std::uint32_t>(woken) < count) {
    queues.clear();
    std::size_t waiting = 0;
    const auto consider = [&](const resource& q, std::uint32_t b) {
      if ((b & bitset) == 0) return;
      if (const std::size_t n = waiter_count(q); n > 0) {
        queues.push_back(&q);
        waiting += n;
      }
    };
    consider(w.res, match_any);
    for (const auto& q : w.others) consider(q->res, q->bitset);
    if (waiting == 0) break;
    const resource* chosen = queues.front();
    if (queues.size() > 1) {
      // Waiters of several bitsets: the strategy picks one waiter among all
      // (its queue here, the waiter in it by signal_one).
      std::uint64_t pick = choose_int(waiting, {});
      for (const resource* q : queues) {
        const std::size_t n = waiter_count(*q);
        if (pick < n) {
          chosen = q;
          break;
        }
        pick -= n;
      }
    }
    hb_release(*chosen);
    signal_one(*chosen);
    ++woken;
  }
  return woken;
}

const char* name_of(int command) {
  switch (command) {
    case FUTEX_FD: return "FUTEX_FD";
    case FUTEX_REQUEUE: return "FUTEX_REQUEUE";
    case FUTEX_CMP_REQUEUE: return "FUTEX_CMP_REQUEUE";
    case FUTEX_WAKE_OP: return "FUTEX_WAKE_OP";
    case FUTEX_LOCK_PI: return "FUTEX_LOCK_PI";
    case FUTEX_UNLOCK_PI: return "FUTEX_UNLOCK_PI";
    case FUTEX_TRYLOCK_PI: return "FUTEX_TRYLOCK_PI";
    case FUTEX_WAIT_REQUEUE_PI: return "FUTEX_WAIT_REQUEUE_PI";
    case FUTEX_CMP_REQUEUE_PI: return "FUTEX_CMP_REQUEUE_PI";
    default: return "an unknown operation";
  }
}

// Once per operation kind and process: the call is the kernel's.
void warn_unmodelled(int command) {
  static bool warned[64] = {};
  if (command >= 0 && command < 64) {
    if (warned[command]) return;
    warned[command] = true;
  }
  std::fprintf(stderr,
               "heddle: warning: the program calls futex with %s (%d), which heddle does not model: the call is the "
               "kernel's, as one step, and does not see the threads heddle has waiting on a futex\n",
               name_of(command), command);
}

long futex(std::uint32_t* address, int op, std::uint32_t value, const timespec* timeout, std::uint32_t* address2,
           std::uint32_t value3, long (*kernel)(long, ...)) {
  const int command = op & FUTEX_CMD_MASK;
  const clockid_t clock = (op & FUTEX_CLOCK_REALTIME) != 0 ? CLOCK_REALTIME : CLOCK_MONOTONIC;
  if (reinterpret_cast<std::uintptr_t>(address) % alignof(std::uint32_t) != 0) return fail(EINVAL);
  switch (command) {
    case FUTEX_WAIT: return wait(address, value, timeout, false, clock, match_any);
    case FUTEX_WAIT_BITSET: return wait(address, value, timeout, true, clock, value3);
    case FUTEX_WAKE: return wake(address, value, match_any);
    case FUTEX_WAKE_BITSET: return wake(address, value, value3);
    default:
      warn_unmodelled(command);
      scheduling_point(point_kind::user, std::source_location{});
      return kernel(SYS_futex, address, op, value, timeout, address2, value3);
  }
}

}  // namespace

}  // namespace heddle::rt

// syscall(2) is variadic; like the C library's, this reads six arguments.
HEDDLE_RT_DEFINE(long, syscall, (long number, ...)) {
  va_list args;
  va_start(args, number);
  long a[6];
  for (long& x : a) x = va_arg(args, long);
  va_end(args);
  if (number == SYS_futex && heddle::rt::controlled()) {
    heddle::rt::signal_delivery_point();
    return heddle::rt::futex(reinterpret_cast<std::uint32_t*>(a[0]), static_cast<int>(a[1]),
                             static_cast<std::uint32_t>(a[2]), reinterpret_cast<const timespec*>(a[3]),
                             reinterpret_cast<std::uint32_t*>(a[4]), static_cast<std::uint32_t>(a[5]),
                             heddle::detail::real::kernel_syscall());
  }
  return heddle::detail::real::kernel_syscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
