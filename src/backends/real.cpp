// See real.hpp: the lookups themselves happen in the macros.
#include "backends/real.hpp"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
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

syscall_function kernel_syscall() noexcept {
  // Not a function-local static: the first callers of a forked child run on
  // several threads at once, and a guarded static would have them wait in
  // __cxa_guard_acquire, which waits through syscall() itself. Every thread
  // that looks it up finds the same function.
  static std::atomic<syscall_function> resolved{nullptr};
  syscall_function f = resolved.load(std::memory_order_acquire);
  if (f == nullptr) {
    // The C library's own, by name, not the next definition after this
    // object: a test binary that links heddle statically and libheddle-rt too
    // would find the interposer next.
    void* libc = ::dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void* own = libc != nullptr ? ::dlsym(libc, "syscall") : nullptr;
    f = reinterpret_cast<syscall_function>(checked(own != nullptr ? own : ::dlsym(RTLD_NEXT, "syscall"), "syscall"));
    resolved.store(f, std::memory_order_release);
  }
  return f;
}

long futex(std::uint32_t* word, int op, std::uint32_t value, const timespec* timeout) noexcept {
  return kernel_syscall()(SYS_futex, word, op, value, timeout, nullptr, 0);
}

}  // namespace heddle::detail::real
