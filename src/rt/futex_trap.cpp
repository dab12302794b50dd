// Futex calls a library makes with its own `syscall` instruction, trapped and
// run on the futex model (futex_trap.hpp).
//
// Who needs it: libgomp, GCC's OpenMP runtime, makes its futex calls inline
// (config/linux/x86/futex.h), not through syscall(). Unseen, a thread of a
// parallel region that waits at the region's barrier blocks its OS thread in
// the kernel while it holds the only turn to run; the thread it waits for
// never runs, and every OpenMP program hung in its first region ("operation 1
// (main) is blocked in futex()", after one step).
//
// How: a seccomp filter (SECCOMP_RET_TRAP) on the futex system call made from
// the library's executable code, by the call's instruction address, which the
// filter can read (seccomp_data.instruction_pointer). The kernel turns such a
// call into a SIGSYS in the calling thread, at the call, with its arguments in
// the registers; the handler runs it on the futex model (or on the kernel,
// outside control), writes the result where the system call would have left
// it, and the library goes on after the instruction. Every other system call,
// and every futex call from anywhere else, is the kernel's as before. The
// filter is installed in each iteration's child before its first thread (the
// threads inherit it) and never in the fork server, whose output checks run
// other programs. The handler may block and switch operations: it runs on the
// operation's own stack (no SA_ONSTACK), and SA_NODEFER lets another fiber
// trap while this one waits in its handler. libgomp's own atomics are not
// instrumented: its spin-waits before a futex wait run their course (they
// end: GOMP_SPINCOUNT bounds them), and heddle controls the program at its
// futex calls, as it controls a Debian binary at its pthread calls.
//
// Limits: a child the iteration starts with exec inherits the filter without
// the handler; a futex call it makes at the same address range (the same
// libgomp, loaded at the same place) would end it with SIGSYS. A library not
// in the list below, or one dlopen'ed after startup, is not trapped.
#include "rt/futex_trap.hpp"

#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "backends/real.hpp"

namespace heddle::rt {

namespace {

// The libraries known to make their own futex calls, by file name.
constexpr const char* own_futex_callers[] = {"libgomp.so"};

// The executable code of the one such library loaded, [begin, end); 0 when
// none is, or when the kernel would not let a child trap it.
std::uintptr_t trapped_begin = 0;
std::uintptr_t trapped_end = 0;
const char* trapped_name = nullptr;
bool searched = false;

int find_caller(dl_phdr_info* info, std::size_t, void*) {
  const char* name = info->dlpi_name;
  if (name == nullptr) return 0;
  const char* base = std::strrchr(name, '/');
  base = base != nullptr ? base + 1 : name;
  for (const char* wanted : own_futex_callers) {
    if (std::strncmp(base, wanted, std::strlen(wanted)) != 0) continue;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& segment = info->dlpi_phdr[i];
      if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
      trapped_begin = info->dlpi_addr + segment.p_vaddr;
      trapped_end = trapped_begin + segment.p_memsz;
      trapped_name = name;
      return 1;
    }
  }
  return 0;
}

// The library cannot be trapped: its waits will block for real.
void forget(const char* name) noexcept {
  std::fprintf(stderr,
               "heddle: warning: %s makes its own futex system calls, which heddle cannot trap here (no seccomp "
               "filter): its waits block for real, and its threads will hang\n",
               name);
  trapped_name = nullptr;
  trapped_begin = trapped_end = 0;
}

#if defined(__x86_64__)
// si_code of a SIGSYS the filter raised (SYS_SECCOMP, which glibc's headers
// do not define for C++).
constexpr int seccomp_trap_code = 1;

// Argument registers of a system call on x86-64, in order.
constexpr int argument_registers[6] = {REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9};

void on_trapped_call(int, siginfo_t* info, void* context) {
  auto* registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  if (info->si_code != seccomp_trap_code || info->si_syscall != SYS_futex) return;
  // The library's code made a system call, which leaves errno alone.
  const int saved_errno = errno;
  long arguments[6];
  for (int i = 0; i < 6; ++i) arguments[i] = static_cast<long>(registers[argument_registers[i]]);
  const long result = futex_system_call(arguments);
  registers[REG_RAX] = static_cast<greg_t>(result);
  errno = saved_errno;
}

// Installs the handler and the filter on the calling thread (and, by
// inheritance, on the threads it creates later). False when the kernel
// refuses (seccomp not built in, or forbidden by a sandbox).
bool install() noexcept {
  struct sigaction action{};
  action.sa_sigaction = &on_trapped_call;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGSYS, &action, nullptr) != 0) return false;
  const auto high = static_cast<std::uint32_t>(trapped_begin >> 32);
  const auto low_begin = static_cast<std::uint32_t>(trapped_begin);
  const auto low_end = static_cast<std::uint32_t>(trapped_end);
  constexpr std::uint32_t ip_low = offsetof(seccomp_data, instruction_pointer);
  constexpr std::uint32_t ip_high = ip_low + 4;
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ip_high),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, high, 0, 4),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ip_low),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, low_begin, 0, 2),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, low_end, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return heddle::detail::real::kernel_syscall()(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0;
}
#else
// The handler reads the call's registers, written here for x86-64 only:
// elsewhere the library is not trapped, and the fork server says so.
bool install() noexcept { return false; }
#endif

// Finds the library, if one is loaded in one 4 GiB window (the filter
// compares the address in two 32-bit halves); once.
void search() noexcept {
  if (searched) return;
  searched = true;
  ::dl_iterate_phdr(&find_caller, nullptr);
  if (trapped_name != nullptr &&
      (trapped_begin >> 32 != (trapped_end - 1) >> 32 || static_cast<std::uint32_t>(trapped_end) == 0))
    forget(trapped_name);
}

}  // namespace

const char* find_own_futex_callers() noexcept {
  search();
  if (trapped_name == nullptr) return nullptr;
  // Tried in a child of its own: a filter cannot be taken back.
  const pid_t probe = ::fork();
  if (probe == 0) ::_exit(install() ? 0 : 1);
  int status = 0;
  const char* found = trapped_name;
  if (probe > 0 && ::waitpid(probe, &status, 0) == probe && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return found;
  forget(trapped_name);
  return found;
}

void trap_own_futex_calls() noexcept {
  search();  // HEDDLE_RUN=direct runs an iteration without the fork server's set-up
  if (trapped_name != nullptr) (void)install();
}

}  // namespace heddle::rt
