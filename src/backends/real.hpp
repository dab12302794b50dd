// The C library's own functions, past any interposer.
//
// libheddle-rt defines pthread_mutex_lock, pthread_create, nanosleep and the
// rest so that unmodified programs run on heddle's models (DESIGN.md section 9).
// heddle itself still needs the real ones: the OS-thread backend creates real
// threads, the runtime passes calls through when no iteration is running, the
// fork server sleeps for real. HEDDLE_REAL(fn) names the definition that comes
// after the calling object in symbol lookup order (dlsym(RTLD_NEXT)), which is
// the C library's whether heddle is linked into the program, preloaded, or
// linked statically into a test binary with no interposer at all.
//
//   HEDDLE_REAL(pthread_mutex_lock)(&m);
//
// The lookup happens once per function and is cached. A function the C library
// does not export is a broken installation: the process ends with one line.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <ctime>

namespace heddle::detail::real {

// `f`, the C library's `name`; a null `f` ends the process with one line.
void* checked(void* f, const char* name) noexcept;

// A system call made as the C library's syscall() makes it, past libheddle-rt's
// interposer (rt/futex.cpp), and without looking anything up: it is safe in a
// program's own malloc before main.
using syscall_function = long (*)(long, ...);
syscall_function kernel_syscall() noexcept;

// The futex system call as the kernel does it: heddle's own hand-offs (the
// OS-thread backend, the fork server's log) must not reach libheddle-rt's
// interposer of syscall(), which models the futexes of the program
// (rt/futex.cpp).
long futex(std::uint32_t* word, int op, std::uint32_t value, const timespec* timeout) noexcept;

}  // namespace heddle::detail::real

// dlsym is called here, in the object that uses the macro, not in a heddle
// function: RTLD_NEXT is relative to the caller's object, and a program that
// links heddle twice (statically, and inside libheddle-rt.so) would otherwise
// resolve the .so's interposers to themselves.
#define HEDDLE_REAL(fn)                                                                            \
  ([]() noexcept {                                                                                 \
    static auto* const resolved =                                                                  \
        reinterpret_cast<decltype(&::fn)>(::heddle::detail::real::checked(::dlsym(RTLD_NEXT, #fn), #fn)); \
    return resolved;                                                                               \
  }())

// pthread_cond_* must name the current symbol version: plain dlsym gives
// glibc's 2002 ABI of the condition variable functions.
#define HEDDLE_REAL_COND(fn)                                                                       \
  ([]() noexcept {                                                                                 \
    static auto* const resolved = reinterpret_cast<decltype(&::fn)>(::heddle::detail::real::checked( \
        ::dlvsym(RTLD_NEXT, #fn, "GLIBC_2.3.2") != nullptr ? ::dlvsym(RTLD_NEXT, #fn, "GLIBC_2.3.2")  \
                                                           : ::dlsym(RTLD_NEXT, #fn),               \
        #fn));                                                                                     \
    return resolved;                                                                               \
  }())
