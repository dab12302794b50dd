// See real.hpp: the lookups themselves happen in the macros.
#include "backends/real.hpp"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>

namespace heddle::detail::real {

namespace {

// No stdio, no allocation: this can run before main, inside an interposed
// pthread call, with the C library half set up.
void write_line(const char* a, const char* b) noexcept {
  ::write(2, a, std::strlen(a));
  ::write(2, b, std::strlen(b));
  ::write(2, "\n", 1);
}

}  // namespace

void* checked(void* f, const char* name) noexcept {
  if (f == nullptr) {
    write_line("heddle: the C library does not export ", name);
    std::_Exit(3);
  }
  return f;
}

// The system call itself, as the C library's syscall() makes it (six
// arguments, -1 and errno on failure), with no lookup: a program may call
// syscall() from its own malloc before main (mimalloc, which mold links,
// asks getrandom for its keys while it sets up its first heap), and looking
// the C library's syscall up then (dlopen, which allocates) re-entered that
// malloc half set up: mold aborted at start under heddle (test
// cli.run_of_a_program_with_its_own_malloc_that_calls_syscall). No errno is
// touched on success, as in the C library.
namespace {

long raw_syscall(long number, ...) noexcept {
  va_list args;
  va_start(args, number);
  long a[6];
  for (long& x : a) x = va_arg(args, long);
  va_end(args);
#if defined(__x86_64__)
  register long r10 __asm__("r10") = a[3];
  register long r8 __asm__("r8") = a[4];
  register long r9 __asm__("r9") = a[5];
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "0"(number), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  if (static_cast<unsigned long>(result) > -4096UL) {
    errno = static_cast<int>(-result);
    return -1;
  }
  return result;
#else
  // Elsewhere the C library's own, looked up once (before main a program's
  // own malloc may see the lookup allocate, as on x86-64 before the call
  // above was written).
  static std::atomic<syscall_function> resolved{nullptr};
  syscall_function f = resolved.load(std::memory_order_acquire);
  if (f == nullptr) {
    void* libc = ::dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void* own = libc != nullptr ? ::dlsym(libc, "syscall") : nullptr;
    f = reinterpret_cast<syscall_function>(checked(own != nullptr ? own : ::dlsym(RTLD_NEXT, "syscall"), "syscall"));
    resolved.store(f, std::memory_order_release);
  }
  return f(number, a[0], a[1], a[2], a[3], a[4], a[5]);
#endif
}

}  // namespace

syscall_function kernel_syscall() noexcept { return &raw_syscall; }

long futex(std::uint32_t* word, int op, std::uint32_t value, const timespec* timeout) noexcept {
  return kernel_syscall()(SYS_futex, word, op, value, timeout, nullptr, 0);
}

}  // namespace heddle::detail::real
