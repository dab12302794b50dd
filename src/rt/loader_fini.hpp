// The dynamic loader's part of exit() in the fork server's children.
//
// exit() runs the handlers the program registered (atexit, static
// destructors), then the loader's teardown (glibc's _dl_fini, which
// __libc_start_main registered first, so it runs last), which calls the
// destructors (DT_FINI_ARRAY, DT_FINI) of every loaded object. Those of the
// C and C++ runtime and of heddle's own libraries do nothing a program can
// see (their handlers ran already; the rest frees memory the process is about
// to lose), but in a forked child each costs page faults: its code, and the
// page of its data it writes. So a child (skip_runtime_fini) runs the
// destructors of the program and of every other library, in the loader's
// order, and skips those. Everywhere else the loader's teardown runs as is.
#pragma once

namespace heddle::rt {

// What __libc_start_main registers instead of the loader's `fini` (rt/startup.cpp).
void set_loader_fini(void (*fini)()) noexcept;
void loader_fini();

// From now on in this process, loader_fini skips the runtime's objects.
void skip_runtime_fini() noexcept;

// Done once in the fork server: tells apart the runtime's objects among those
// loaded now, so that no child reads their names again at its exit.
void prepare_runtime_fini();

// Whether the object named `path` (a loaded object's file name) is the
// runtime's: the C and C++ runtime, heddle's libraries. A child skips their
// destructors, and those of the libraries libdw needs.
bool is_runtime_object(const char* path) noexcept;

}  // namespace heddle::rt
