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
//
// The other operations, which the kernel would run without seeing the
// modelled waiters (a wake that wakes nobody; a lock that blocks the OS
// thread for good):
// - FUTEX_WAKE_OP does its operation on the second word and wakes on both
//   words in one step, as the kernel does under its locks;
// - FUTEX_REQUEUE and FUTEX_CMP_REQUEUE wake the waiters they would move to
//   the second word instead of moving them: for them a spurious wake-up,
//   which futex(2) allows and every user of a futex handles (it re-checks
//   its word and waits again); they return how many were woken or moved, as
//   the kernel does;
// - the priority-inheritance futexes are a lock on the word, which holds
//   its owner's thread id and FUTEX_WAITERS as the kernel keeps them:
//   FUTEX_LOCK_PI (and LOCK_PI2) takes it or blocks (EDEADLK for its owner,
//   ETIMEDOUT on virtual time), FUTEX_TRYLOCK_PI never blocks (EWOULDBLOCK),
//   FUTEX_UNLOCK_PI lets one waiter take it (EPERM for a non-owner);
//   FUTEX_WAIT_REQUEUE_PI is a wait on the first word that returns holding
//   the second, FUTEX_CMP_REQUEUE_PI wakes its waiters, which then take the
//   lock in turn. Priorities themselves mean nothing here: the strategy
//   decides who runs. The thread id is the caller's gettid(); on fibers,
//   where every operation runs on one OS thread, an operation other than
//   main has an id no thread has (0x3fff0000 + its number), so a program
//   whose fast path writes gettid() into the word itself sees its threads
//   as one there.
// An operation the kernel does not know (FUTEX_FD, which Linux removed) is
// the kernel's, after a warning: it fails at once.
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "backends/real.hpp"
#include "rt/futex_trap.hpp"
#include "rt/pthread_runtime.hpp"
#include "rt/tsan_runtime.hpp"

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
  // The kernel's lock on the word (its hash bucket's): every wait and wake
  // takes it and lets it go, so each futex call on the word happens after
  // the ones before it, as in Linux, and a woken waiter after its waker
  // (happens-before, and the rc11 views; an unlock of a PI lock publishes
  // on it too). Not the queues, whose kind (atomic, for reports) the
  // weak-memory model leaves to its own store histories (weak_memory.cpp,
  // wm_acquire): on them, under rc11, a woken waiter's next acquire load of
  // the word could read the value from before the wake, and a wait that came
  // after a wake could compare the word with a value older than the waker's
  // change; a correct waiter-count protocol (libstdc++'s atomic::wait) then
  // slept for ever. Made only when the race detector or rc11 asks for it, so
  // other runs' object numbers do not change.
  resource order{object_kind::variable};
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

// The word as the kernel's comparison reads it. Under rc11 (an instrumented
// program), a seq_cst load of the word in the model, as the kernel's
// comparison is: Linux orders it after the caller's earlier accesses with a
// full barrier (futex_wait_setup's smp_mb, against the waker's), which is
// what a count of waiters beside the word relies on. Read from memory instead,
// outside the model, the comparison was left out of the seq_cst order:
// libstdc++ 12's atomic::wait (std::barrier, std::latch) counts its waiters
// with seq_cst read-modify-writes and skips the wake when its seq_cst load of
// that count reads 0, and the model let that load read the count from before
// a waiter's increment although the waiter had already compared and slept:
// a deadlock of a correct program (the third-party audit, 2026-11-29).
std::uint32_t compared(std::uint32_t* address) {
  if (!tsan::weak_memory_on()) return __atomic_load_n(address, __ATOMIC_SEQ_CST);
  std::uint32_t seen = 0;
  const tsan::weak_access a = tsan::weak_locate(reinterpret_cast<std::uintptr_t>(address), sizeof seen);
  tsan::weak_load(a, tsan::tsan_order::seq_cst, &seen, 0);
  return seen;
}

// `spurious`: may return 0 without a wake (FUTEX_WAIT_REQUEUE_PI never does:
// its 0 means the lock is held).
long wait(std::uint32_t* address, std::uint32_t expected, const timespec* timeout, bool absolute, clockid_t clock,
          std::uint32_t bitset, bool spurious = true) {
  if (bitset == 0) return fail(EINVAL);
  if (timeout != nullptr && (timeout->tv_nsec < 0 || timeout->tv_nsec >= nanos_per_second || timeout->tv_sec < 0))
    return fail(EINVAL);
  futex_word& w = word_at(address);
  scheduling_point(point_kind::wait, w.res, {});
  // The comparison and the block are one step: nothing runs in between.
  hb_acquire(w.order);
  const std::uint32_t seen = compared(address);
  hb_release(w.order);
  if (seen != expected) return fail(EAGAIN);
  std::optional<virtual_time> deadline;
  if (timeout != nullptr) deadline = absolute ? deadline_at(clock, *timeout) : deadline_after(*timeout);
  const resource& q = w.queue_of(bitset);
  if (spurious && spurious_wakeups_enabled() && choose_rare(point_kind::wait, w.res, {})) return 0;
  if (!deadline) {
    heddle::wait(q, {});
  } else if (*deadline <= now() || wait_until(q, *deadline, {}) == wake_reason::timeout) {
    return fail(ETIMEDOUT);
  }
  hb_acquire(w.order);
  return 0;
}

// Wakes up to `count` waiters of `w` whose bitset meets `bitset`, without a
// scheduling point of its own; returns how many.
long wake_waiters(futex_word& w, std::uint64_t count, std::uint32_t bitset) {
  hb_acquire(w.order);
  hb_release(w.order);
  long woken = 0;
  // The queues this wake may take waiters from, and how many each holds now.
  std::vector<const resource*> queues;
  while (static_cast<std::uint64_t>(woken) < count) {
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
    signal_one(*chosen);
    ++woken;
  }
  return woken;
}

long wake(std::uint32_t* address, std::uint32_t count, std::uint32_t bitset) {
  if (bitset == 0) return fail(EINVAL);
  futex_word& w = word_at(address);
  scheduling_point(point_kind::signal, w.res, {});
  return wake_waiters(w, count, bitset);
}

std::uint64_t saturating_sum(std::uint32_t a, std::uint32_t b) { return std::uint64_t{a} + b; }

// FUTEX_REQUEUE, FUTEX_CMP_REQUEUE (`compare`: *address must be `expected`).
long requeue(std::uint32_t* address, std::uint32_t wake_count, std::uint32_t requeue_count,
             std::uint32_t* address2, bool compare, std::uint32_t expected) {
  if (reinterpret_cast<std::uintptr_t>(address2) % alignof(std::uint32_t) != 0) return fail(EINVAL);
  futex_word& w = word_at(address);
  scheduling_point(point_kind::signal, w.res, {});
  if (compare && __atomic_load_n(address, __ATOMIC_SEQ_CST) != expected) return fail(EAGAIN);
  // Those it would move wake up too (see the file's comment).
  return wake_waiters(w, saturating_sum(wake_count, requeue_count), match_any);
}

// FUTEX_WAKE_OP: the operation on *address2, then the wakes, in one step.
long wake_op(std::uint32_t* address, std::uint32_t wake_count, std::uint32_t wake_count2, std::uint32_t* address2,
             std::uint32_t encoded) {
  if (reinterpret_cast<std::uintptr_t>(address2) % alignof(std::uint32_t) != 0) return fail(EINVAL);
  const unsigned op = (encoded >> 28) & 7;
  const unsigned cmp = (encoded >> 24) & 15;
  // 12-bit signed arguments, as the kernel reads them.
  std::int32_t oparg = static_cast<std::int32_t>(encoded << 8) >> 20;
  const std::int32_t cmparg = static_cast<std::int32_t>(encoded << 20) >> 20;
  if ((encoded >> 28) & FUTEX_OP_OPARG_SHIFT) {
    if (oparg < 0 || oparg > 31) return fail(EINVAL);
    oparg = static_cast<std::int32_t>(1u << oparg);
  }
  if (op > FUTEX_OP_XOR || cmp > FUTEX_OP_CMP_GE) return fail(ENOSYS);
  futex_word& w = word_at(address);
  futex_word& w2 = word_at(address2);
  scheduling_point(point_kind::rmw, w2.res, {});
  const auto old = static_cast<std::int32_t>(__atomic_load_n(address2, __ATOMIC_SEQ_CST));
  std::uint32_t next = 0;
  const auto arg = static_cast<std::uint32_t>(oparg);
  switch (op) {
    case FUTEX_OP_SET: next = arg; break;
    case FUTEX_OP_ADD: next = static_cast<std::uint32_t>(old) + arg; break;
    case FUTEX_OP_OR: next = static_cast<std::uint32_t>(old) | arg; break;
    case FUTEX_OP_ANDN: next = static_cast<std::uint32_t>(old) & ~arg; break;
    default: next = static_cast<std::uint32_t>(old) ^ arg; break;
  }
  __atomic_store_n(address2, next, __ATOMIC_SEQ_CST);
  long woken = wake_waiters(w, wake_count, match_any);
  bool more = false;
  switch (cmp) {
    case FUTEX_OP_CMP_EQ: more = old == cmparg; break;
    case FUTEX_OP_CMP_NE: more = old != cmparg; break;
    case FUTEX_OP_CMP_LT: more = old < cmparg; break;
    case FUTEX_OP_CMP_LE: more = old <= cmparg; break;
    case FUTEX_OP_CMP_GT: more = old > cmparg; break;
    default: more = old >= cmparg; break;
  }
  if (more) woken += wake_waiters(w2, wake_count2, match_any);
  return woken;
}

// The priority-inheritance futexes: the word holds its owner's thread id.
// Their waiters wait on a queue of bitset 0, which no wake's bitset meets.
constexpr std::uint32_t pi_queue = 0;

std::uint32_t caller_tid(long (*kernel)(long, ...)) {
  const auto tid = static_cast<std::uint32_t>(kernel(SYS_gettid));
  const operation_id op = current_operation();
  // On fibers every operation runs on the process's initial thread.
  if (op != 1 && tid == static_cast<std::uint32_t>(kernel(SYS_getpid))) return 0x3fff0000u + (op & 0xffffu);
  return tid & FUTEX_TID_MASK;
}

long lock_pi(std::uint32_t* address, std::optional<virtual_time> deadline, bool try_only, std::uint32_t tid) {
  futex_word& w = word_at(address);
  scheduling_point(point_kind::acquire, w.res, {});
  const resource& q = w.queue_of(pi_queue);
  for (;;) {
    const std::uint32_t word = __atomic_load_n(address, __ATOMIC_SEQ_CST);
    const std::uint32_t owner = word & FUTEX_TID_MASK;
    if (owner == 0) {
      const std::uint32_t waiters = waiter_count(q) > 0 ? FUTEX_WAITERS : 0;
      __atomic_store_n(address, tid | waiters | (word & FUTEX_OWNER_DIED), __ATOMIC_SEQ_CST);
      hb_acquire(w.order);
      return 0;
    }
    if (owner == tid) return fail(EDEADLK);
    if (try_only) return fail(EWOULDBLOCK);
    __atomic_store_n(address, word | FUTEX_WAITERS, __ATOMIC_SEQ_CST);
    if (!deadline) {
      heddle::wait(q, {});
    } else if (*deadline <= now() || wait_until(q, *deadline, {}) == wake_reason::timeout) {
      return fail(ETIMEDOUT);
    }
  }
}

long unlock_pi(std::uint32_t* address, std::uint32_t tid) {
  futex_word& w = word_at(address);
  scheduling_point(point_kind::release, w.res, {});
  const std::uint32_t word = __atomic_load_n(address, __ATOMIC_SEQ_CST);
  if ((word & FUTEX_TID_MASK) != tid) return fail(EPERM);
  // Free; the waiter woken takes it when it runs (and sets FUTEX_WAITERS
  // again if others still wait).
  __atomic_store_n(address, 0, __ATOMIC_SEQ_CST);
  const resource& q = w.queue_of(pi_queue);
  hb_release(w.order);
  if (waiter_count(q) > 0) signal_one(q);
  return 0;
}

std::optional<virtual_time> absolute_deadline(const timespec* timeout, clockid_t clock) {
  if (timeout == nullptr) return std::nullopt;
  return deadline_at(clock, *timeout);
}

bool bad_timeout(const timespec* timeout) {
  return timeout != nullptr && (timeout->tv_nsec < 0 || timeout->tv_nsec >= nanos_per_second || timeout->tv_sec < 0);
}

const char* name_of(int command) { return command == FUTEX_FD ? "FUTEX_FD" : "an unknown operation"; }

// Once per operation kind and process: the call is the kernel's.
void warn_unmodelled(int command) {
  static bool warned[64] = {};
  if (command >= 0 && command < 64) {
    if (warned[command]) return;
    warned[command] = true;
  }
  std::fprintf(stderr,
               "heddle: warning: the program calls futex with %s (%d), which heddle does not model: the call is the "
               "kernel's, as one step (which fails at once)\n",
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
    // The second count travels in the timeout's place.
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
      return requeue(address, value, static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(timeout)), address2,
                     command == FUTEX_CMP_REQUEUE, value3);
    case FUTEX_WAKE_OP:
      return wake_op(address, value, static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(timeout)), address2,
                     value3);
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
      if (bad_timeout(timeout)) return fail(EINVAL);
      // LOCK_PI's timeout is on CLOCK_REALTIME whatever the flag says; LOCK_PI2's follows it.
      return lock_pi(address, absolute_deadline(timeout, command == FUTEX_LOCK_PI ? CLOCK_REALTIME : clock), false,
                     caller_tid(kernel));
    case FUTEX_TRYLOCK_PI: return lock_pi(address, std::nullopt, true, caller_tid(kernel));
    case FUTEX_UNLOCK_PI: return unlock_pi(address, caller_tid(kernel));
    case FUTEX_WAIT_REQUEUE_PI: {
      if (address2 == address || reinterpret_cast<std::uintptr_t>(address2) % alignof(std::uint32_t) != 0)
        return fail(EINVAL);
      if (bad_timeout(timeout)) return fail(EINVAL);
      const std::optional<virtual_time> deadline = absolute_deadline(timeout, clock);
      if (const long r = wait(address, value, timeout, true, clock, match_any, false); r != 0) return r;
      // Woken (by FUTEX_CMP_REQUEUE_PI): it returns holding the second word.
      return lock_pi(address2, deadline, false, caller_tid(kernel));
    }
    case FUTEX_CMP_REQUEUE_PI:
      if (value != 1) return fail(EINVAL);
      return requeue(address, value, static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(timeout)), address2,
                     true, value3);
    default:
      warn_unmodelled(command);
      scheduling_point(point_kind::user, std::source_location{});
      return kernel(SYS_futex, address, op, value, timeout, address2, value3);
  }
}

}  // namespace

long futex_system_call(const long (&a)[6]) {
  const heddle::detail::real::syscall_function kernel = heddle::detail::real::kernel_syscall();
  if (!controlled()) {
    const long r = kernel(SYS_futex, a[0], a[1], a[2], a[3], a[4], a[5]);
    return r == -1 ? -errno : r;
  }
  signal_delivery_point();
  const long r = futex(reinterpret_cast<std::uint32_t*>(a[0]), static_cast<int>(a[1]), static_cast<std::uint32_t>(a[2]),
                       reinterpret_cast<const timespec*>(a[3]), reinterpret_cast<std::uint32_t*>(a[4]),
                       static_cast<std::uint32_t>(a[5]), kernel);
  return r == -1 ? -errno : r;
}

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
