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

namespace heddle::detail::real {

// The next definition of `name` after heddle's (dlsym(RTLD_NEXT)); `version`
// selects a symbol version where glibc keeps several (pthread_cond_* default to
// their 2002 ABI through plain dlsym: pass "GLIBC_2.3.2"). Never returns null.
void* lookup(const char* name, const char* version = nullptr) noexcept;

}  // namespace heddle::detail::real

#define HEDDLE_REAL(fn)                                                                          \
  ([]() noexcept {                                                                               \
    static auto* const resolved = reinterpret_cast<decltype(&::fn)>(::heddle::detail::real::lookup(#fn)); \
    return resolved;                                                                             \
  }())

// pthread_cond_* must name the current symbol version (see lookup()).
#define HEDDLE_REAL_COND(fn)                                                                     \
  ([]() noexcept {                                                                               \
    static auto* const resolved =                                                                \
        reinterpret_cast<decltype(&::fn)>(::heddle::detail::real::lookup(#fn, "GLIBC_2.3.2"));   \
    return resolved;                                                                             \
  }())
