// Signals between the threads of one program, under control: the signal masks
// of its threads, signals it sends itself (raise, kill of its own pid,
// pthread_kill of its own threads), their delivery to a handler, and the calls
// that wait for them (sigsuspend, pause, sigwait, sigwaitinfo, sigtimedwait).
//
// Who needs it: programs that use signals as a hand-off between their own
// threads. lbzip2's main thread blocks its handled signals, starts the
// workers (which inherit the mask) and sleeps in sigsuspend until the last
// worker raises SIGUSR2 for the process; pbzip2 keeps a thread in sigwait for
// SIGINT and SIGTERM. Left to the kernel, a thread in sigsuspend or sigwait
// blocks the OS thread for real while holding the only turn to run, and
// nobody can ever send the signal: the iteration hangs.
//
// The model (signal(7), POSIX "Signal Generation and Delivery"):
// - Each thread has its own mask, inherited from its creator
//   (pthread_create calls inherit_signal_mask); the main thread starts with
//   the mask the process had. pthread_sigmask and sigprocmask change it (and,
//   as before, the OS thread's, for the signals the kernel itself sends).
// - A signal sent to a thread goes to that thread; one sent to the process
//   goes to a thread waiting for it in sigwait if there is one, else to a
//   thread that does not block it, the strategy choosing when there are
//   several (a recorded choice). Blocked everywhere, it stays pending (for the
//   thread, or for the process) until a thread unblocks it or waits for it.
// - Delivery runs the handler sigaction installed, in the receiving thread,
//   with the handler's mask added (SA_NODEFER, SA_RESETHAND, SA_SIGINFO
//   honoured): at once when the receiver is the sender (raise delivers
//   before it returns), when a sigsuspend or pause is waiting (which then
//   returns -1 with EINTR), or when pthread_sigmask unblocks a pending
//   signal; otherwise at the receiver's next call into libheddle-rt (the
//   kernel would interrupt it anywhere: heddle defers delivery to the next
//   synchronization call, as ThreadSanitizer defers it to a safe point).
// - A signal whose action is to be ignored (SIG_IGN, or a default action of
//   ignore) is discarded unless blocked or waited for. One whose default
//   action ends the process, and every synchronous fault signal (SIGSEGV,
//   SIGABRT...), is the kernel's: the process ends as it would.
// - The sender's effects before the send happen before the handler and
//   before the return of the wait that receives the signal.
// A thread waiting in sigsuspend or sigwait for a signal nobody sends is
// blocked like any other waiter: when nothing else can run, that is a
// deadlock ("waits for user #N", the thread's signal resource).
// Not modelled: signals from outside the process, tgkill and sigqueue
// (the kernel's), real-time signal queueing (a pending signal is a set bit),
// and alternate signal stacks (the handler runs on the operation's stack).
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

// The C library's pthread_sigmask, looked up in one place so that the fork
// server resolves it once (resolve_signal_functions) and no child looks it
// up again: a dlsym in a child is a dozen page faults in the loader.
decltype(&::pthread_sigmask) real_pthread_sigmask() noexcept { return HEDDLE_REAL(pthread_sigmask); }

void resolve_signal_functions() noexcept { (void)real_pthread_sigmask(); }

std::uint32_t deferred_signal_deliveries = 0;

namespace {

// One controlled thread's signal state.
struct thread_signals {
  sigset_t mask{};
  sigset_t pending{};
  enum class waits : std::uint8_t { none, suspend, sigwait } waiting = waits::none;
  sigset_t awaited{};  // sigwait: the signals it accepts
  int received = 0;    // the signal that ended its wait
  bool deferred = false;  // has an unblocked pending signal, for its next call into the runtime
  resource wake{object_kind::user};
};

// The process's signal state in the running iteration.
struct signal_table {
  std::uint32_t epoch = 0;
  sigset_t process_pending{};
  std::vector<std::unique_ptr<thread_signals>> threads;  // by operation id
  resource sends{object_kind::user};                    // the send and receive points, and their hb edge

  void sync() {
    if (epoch == detail::control.epoch) return;
    threads.clear();
    sigemptyset(&process_pending);
    deferred_signal_deliveries = 0;
    epoch = detail::control.epoch;
  }
};

signal_table& table() {
  static signal_table t;
  t.sync();
  return t;
}

thread_signals& of(operation_id op) {
  signal_table& t = table();
  if (t.threads.size() <= op) t.threads.resize(op + 1);
  if (!t.threads[op]) {
    t.threads[op] = std::make_unique<thread_signals>();
    // The main thread's mask is the process's; a thread created under control
    // got its creator's in inherit_signal_mask (an unknown one: none blocked).
    if (op == 1) real_pthread_sigmask()(SIG_BLOCK, nullptr, &t.threads[op]->mask);
  }
  return *t.threads[op];
}

thread_signals& mine() { return of(current_operation()); }

bool synchronous_fault(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP ||
         sig == SIGSYS || sig == SIGKILL || sig == SIGSTOP;
}

enum class action : std::uint8_t { handler, ignore, end_process };

action action_of(int sig, struct sigaction& act) {
  ::sigaction(sig, nullptr, &act);
  if (act.sa_handler == SIG_IGN) return action::ignore;
  if (act.sa_handler != SIG_DFL) return action::handler;
  switch (sig) {
    case SIGCHLD:
    case SIGCONT:
    case SIGURG:
    case SIGWINCH: return action::ignore;
    default: return action::end_process;
  }
}

// The kernel's delivery, for a signal whose action ends the process.
void send_for_real(int sig) { HEDDLE_REAL(pthread_kill)(HEDDLE_REAL(pthread_self)(), sig); }

bool alive(operation_id op) { return op != 0 && !heddle::finished(op); }

void note_deferred(thread_signals& r) {
  if (r.deferred) return;
  r.deferred = true;
  ++deferred_signal_deliveries;
}

void run_handler(thread_signals& r, int sig, int code);

// Delivers every pending signal the caller's mask no longer blocks.
void deliver_unblocked(thread_signals& r) {
  signal_table& t = table();
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sigismember(&r.mask, sig) == 1) continue;
    const bool mine = sigismember(&r.pending, sig) == 1;
    if (!mine && sigismember(&t.process_pending, sig) != 1) continue;
    sigdelset(mine ? &r.pending : &t.process_pending, sig);
    run_handler(r, sig, mine ? SI_TKILL : SI_USER);
  }
}

void run_handler(thread_signals& r, int sig, int code) {
  struct sigaction act{};
  switch (action_of(sig, act)) {
    case action::ignore: return;
    case action::end_process: send_for_real(sig); return;
    case action::handler: break;
  }
  hb_acquire(table().sends);
  const sigset_t saved = r.mask;
  sigorset(&r.mask, &r.mask, &act.sa_mask);
  if ((act.sa_flags & SA_NODEFER) == 0) sigaddset(&r.mask, sig);
  if ((act.sa_flags & SA_RESETHAND) != 0) {
    struct sigaction reset{};
    reset.sa_handler = SIG_DFL;
    ::sigaction(sig, &reset, nullptr);
  }
  if ((act.sa_flags & SA_SIGINFO) != 0) {
    siginfo_t info{};
    info.si_signo = sig;
    info.si_code = code;
    info.si_pid = static_cast<pid_t>(::syscall(SYS_getpid));
    info.si_uid = ::getuid();
    act.sa_sigaction(sig, &info, nullptr);
  } else {
    act.sa_handler(sig);
  }
  r.mask = saved;
  deliver_unblocked(r);
}

// Hands `sig` to thread `op`, which does not block it.
void deliver(operation_id op, int sig, int code) {
  thread_signals& r = of(op);
  if (op == current_operation()) {
    run_handler(r, sig, code);
  } else if (r.waiting == thread_signals::waits::suspend) {
    r.waiting = thread_signals::waits::none;
    r.received = sig;
    heddle::signal(r.wake);
  } else {
    sigaddset(&r.pending, sig);
    note_deferred(r);
  }
}

// The lowest signal in `accepted` pending for `r` or for the process, taken
// off the pending sets; 0 when there is none. `code` says which.
int take_pending(thread_signals& r, const sigset_t& accepted, int& code) {
  signal_table& t = table();
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sigismember(&accepted, sig) != 1) continue;
    if (sigismember(&r.pending, sig) == 1) {
      sigdelset(&r.pending, sig);
      code = SI_TKILL;
      return sig;
    }
    if (sigismember(&t.process_pending, sig) == 1) {
      sigdelset(&t.process_pending, sig);
      code = SI_USER;
      return sig;
    }
  }
  return 0;
}

// The one of `candidates` the strategy picks (a recorded choice when there
// are several).
operation_id pick(const std::vector<operation_id>& candidates) {
  return candidates.size() == 1 ? candidates.front() : candidates[choose_int(candidates.size(), {})];
}

// Sends `sig` to thread `target`, or to the process when `target` is 0.
// Returns 0, or an errno value.
int send_signal(int sig, operation_id target) {
  if (sig < 1 || sig >= NSIG) return EINVAL;
  if (synchronous_fault(sig)) {
    send_for_real(sig);
    return 0;
  }
  signal_table& t = table();
  scheduling_point(point_kind::signal, t.sends, {});
  hb_release(t.sends);
  struct sigaction act{};
  const action what = action_of(sig, act);
  std::vector<operation_id> waiting, unblocked;
  of(1);  // the main thread has a record even if it never touched signals
  for (operation_id op = 1; op < t.threads.size(); ++op) {
    if (target != 0 && op != target) continue;
    if (!alive(op)) continue;
    thread_signals& r = of(op);
    if (r.waiting == thread_signals::waits::sigwait && sigismember(&r.awaited, sig) == 1) waiting.push_back(op);
    else if (sigismember(&r.mask, sig) != 1) unblocked.push_back(op);
  }
  if (target != 0 && !alive(target)) return ESRCH;
  const int code = target != 0 ? SI_TKILL : SI_USER;
  if (!waiting.empty()) {
    thread_signals& r = of(pick(waiting));
    r.waiting = thread_signals::waits::none;
    r.received = sig;
    heddle::signal(r.wake);
    return 0;
  }
  if (unblocked.empty()) {
    sigaddset(target != 0 ? &of(target).pending : &t.process_pending, sig);
    return 0;
  }
  switch (what) {
    case action::ignore: return 0;
    case action::end_process: send_for_real(sig); return 0;
    case action::handler: break;
  }
  // The sender itself first, as the kernel does for a signal it raises.
  const operation_id me = current_operation();
  const bool to_me = std::find(unblocked.begin(), unblocked.end(), me) != unblocked.end();
  deliver(to_me ? me : pick(unblocked), sig, code);
  return 0;
}

// sigwait and its variants: the signal taken, or -1 with errno.
int wait_for(const sigset_t* set, siginfo_t* info, const timespec* timeout) {
  if (timeout != nullptr && invalid(*timeout)) {
    errno = EINVAL;
    return -1;
  }
  thread_signals& r = mine();
  scheduling_point(point_kind::wait, r.wake, {});
  int code = SI_USER;
  int sig = take_pending(r, *set, code);
  if (sig == 0) {
    r.waiting = thread_signals::waits::sigwait;
    r.awaited = *set;
    const std::optional<virtual_time> deadline =
        timeout != nullptr ? std::optional(deadline_after(*timeout)) : std::nullopt;
    if (deadline && *deadline <= now()) {  // a poll: nothing pending
      r.waiting = thread_signals::waits::none;
      errno = EAGAIN;
      return -1;
    }
    while (r.waiting == thread_signals::waits::sigwait) {
      if (!deadline) {
        heddle::wait(r.wake, {});
      } else if (wait_until(r.wake, *deadline, {}) == wake_reason::timeout &&
                 r.waiting == thread_signals::waits::sigwait) {
        r.waiting = thread_signals::waits::none;
        errno = EAGAIN;
        return -1;
      }
    }
    sig = r.received;
    hb_acquire(table().sends);
  }
  if (info != nullptr) {
    std::memset(info, 0, sizeof *info);
    info->si_signo = sig;
    info->si_code = code;
    info->si_pid = static_cast<pid_t>(::syscall(SYS_getpid));
    info->si_uid = ::getuid();
  }
  return sig;
}

// sigsuspend: waits with `mask` as the thread's mask until a handler has run.
int suspend(const sigset_t& mask) {
  thread_signals& r = mine();
  scheduling_point(point_kind::wait, r.wake, {});
  const sigset_t saved = r.mask;
  r.mask = mask;
  sigdelset(&r.mask, SIGKILL);
  sigdelset(&r.mask, SIGSTOP);
  sigset_t accepted;
  sigfillset(&accepted);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&r.mask, sig) == 1) sigdelset(&accepted, sig);
  int code = SI_USER;
  int sig = 0;
  while (sig == 0) {
    sig = take_pending(r, accepted, code);
    struct sigaction act{};
    if (sig != 0 && action_of(sig, act) == action::ignore) sig = 0;  // discarded: go on waiting
    if (sig != 0) break;
    r.waiting = thread_signals::waits::suspend;
    while (r.waiting == thread_signals::waits::suspend) heddle::wait(r.wake, {});
    sig = r.received;
  }
  run_handler(r, sig, code);
  r.mask = saved;
  deliver_unblocked(r);
  errno = EINTR;
  return -1;
}

int change_mask(int how, const sigset_t* set, sigset_t* old) {
  thread_signals& r = mine();  // first: the main thread's starts as the OS thread's mask before this call
  // The OS thread's mask too, for the signals the kernel sends by itself.
  if (const int error = real_pthread_sigmask()(how, set, nullptr); error != 0) return error;
  const sigset_t before = r.mask;
  if (set != nullptr) {
    switch (how) {
      case SIG_BLOCK: sigorset(&r.mask, &r.mask, set); break;
      case SIG_UNBLOCK:
        for (int sig = 1; sig < NSIG; ++sig)
          if (sigismember(set, sig) == 1) sigdelset(&r.mask, sig);
        break;
      default: r.mask = *set; break;  // SIG_SETMASK: the C library has checked `how`
    }
    sigdelset(&r.mask, SIGKILL);
    sigdelset(&r.mask, SIGSTOP);
  }
  if (old != nullptr) *old = before;
  if (set != nullptr) deliver_unblocked(r);
  return 0;
}

}  // namespace

void inherit_signal_mask(operation_id parent, operation_id child) {
  if (parent == 0 || child == 0) return;
  const sigset_t mask = of(parent).mask;
  of(child).mask = mask;
}

void deliver_deferred_signals() {
  if (!controlled() || unwinding()) return;
  signal_table& t = table();
  const operation_id me = current_operation();
  if (me >= t.threads.size() || !t.threads[me] || !t.threads[me]->deferred) return;
  thread_signals& r = *t.threads[me];
  r.deferred = false;
  --deferred_signal_deliveries;
  deliver_unblocked(r);
}

int send_signal_to_thread(operation_id op, int sig) { return send_signal(sig, op); }

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, raise, (int sig)) {
  if (!controlled()) return HEDDLE_REAL(raise)(sig);
  if (const int error = heddle::rt::send_signal_to_thread(heddle::current_operation(), sig); error != 0) {
    errno = error;
    return -1;
  }
  return 0;
}

HEDDLE_RT_DEFINE(int, kill, (pid_t pid, int sig)) {
  if (!controlled() || pid != static_cast<pid_t>(::syscall(SYS_getpid)) || sig == 0) return HEDDLE_REAL(kill)(pid, sig);
  if (const int error = heddle::rt::send_signal(sig, 0); error != 0) {
    errno = error;
    return -1;
  }
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_sigmask, (int how, const sigset_t* set, sigset_t* old)) {
  if (!controlled()) return heddle::rt::real_pthread_sigmask()(how, set, old);
  return heddle::rt::change_mask(how, set, old);
}

HEDDLE_RT_DEFINE(int, sigprocmask, (int how, const sigset_t* set, sigset_t* old)) {
  if (!controlled()) return HEDDLE_REAL(sigprocmask)(how, set, old);
  if (const int error = heddle_rt_pthread_sigmask(how, set, old); error != 0) {
    errno = error;
    return -1;
  }
  return 0;
}

HEDDLE_RT_DEFINE(int, sigpending, (sigset_t * set)) {
  if (!controlled()) return HEDDLE_REAL(sigpending)(set);
  if (HEDDLE_REAL(sigpending)(set) != 0) return -1;
  heddle::rt::signal_table& t = heddle::rt::table();
  heddle::rt::thread_signals& r = heddle::rt::mine();
  sigorset(set, set, &r.pending);
  sigorset(set, set, &t.process_pending);
  return 0;
}

HEDDLE_RT_DEFINE(int, sigsuspend, (const sigset_t* mask)) {
  if (!controlled()) return HEDDLE_REAL(sigsuspend)(mask);
  return heddle::rt::suspend(*mask);
}

HEDDLE_RT_DEFINE(int, pause, ()) {
  if (!controlled()) return HEDDLE_REAL(pause)();
  return heddle::rt::suspend(heddle::rt::mine().mask);
}

HEDDLE_RT_DEFINE(int, sigwait, (const sigset_t* set, int* sig)) {
  if (!controlled()) return HEDDLE_REAL(sigwait)(set, sig);
  const int got = heddle::rt::wait_for(set, nullptr, nullptr);
  if (got < 0) return errno;
  *sig = got;
  return 0;
}

HEDDLE_RT_DEFINE(int, sigwaitinfo, (const sigset_t* set, siginfo_t* info)) {
  if (!controlled()) return HEDDLE_REAL(sigwaitinfo)(set, info);
  return heddle::rt::wait_for(set, info, nullptr);
}

HEDDLE_RT_DEFINE(int, sigtimedwait, (const sigset_t* set, siginfo_t* info, const struct timespec* timeout)) {
  if (!controlled()) return HEDDLE_REAL(sigtimedwait)(set, info, timeout);
  return heddle::rt::wait_for(set, info, timeout);
}
