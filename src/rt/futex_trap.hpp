// Futex system calls that a library makes with its own `syscall` instruction
// rather than through the C library's syscall(), and that libheddle-rt's
// interposer therefore never sees (futex_trap.cpp). libgomp, GCC's OpenMP
// runtime, waits in its barriers, locks and thread pool that way.
#pragma once

namespace heddle::rt {

// The fork server, once before its first child: finds the executable code of
// the libraries known to make their own futex calls, and checks that this
// kernel lets a child trap them. Says so on stderr (one line) when one is
// loaded and cannot be trapped. Returns the path of the one loaded, or null.
const char* find_own_futex_callers() noexcept;

// Each iteration's child, before its first thread: traps those libraries'
// futex calls (a seccomp filter on the call's address) and runs them on the
// futex model, as syscall(SYS_futex, ...) runs. Nothing when none is loaded.
void trap_own_futex_calls() noexcept;

// The futex system call with these six arguments, as the kernel returns it
// (the result, or -errno): on the model for a controlled operation, else the
// kernel's (futex.cpp).
long futex_system_call(const long (&arguments)[6]);

}  // namespace heddle::rt
