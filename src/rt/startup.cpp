// Where the runtime takes over a program: the entry to main, and exit().
//
// libheddle-rt defines __libc_start_main, which the program's startup code
// (crt1.o's _start) calls with the address of main. Ours hands the C
// library a main of its own, which runs the program's unchanged when
// HEDDLE_RUN is not set and the fork server when it is. This catches main
// whether the runtime is linked (heddle-cc) or preloaded (LD_PRELOAD), needs
// nothing from the program, and runs after every static constructor, as a
// program's main does. (A constructor that wraps main cannot: it does not
// know main's address, and running the fork server inside a constructor
// would run later constructors once per iteration.)
//
// exit() under control is a scheduling point (rt/fork_child.hpp); anywhere
// else it is the C library's. The loader's teardown that exit() ends with is
// registered through rt/loader_fini.hpp, which skips part of it in the fork
// server's children.
#include <cstdio>
#include <cstdlib>

#include "backends/real.hpp"
#include "rt/fork_server.hpp"
#include "rt/loader_fini.hpp"

extern "C" int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv, void (*init)(),
                                 void (*fini)(), void (*rtld_fini)(), void* stack_end);

namespace {

heddle::rt::program_main program = nullptr;

int main_under_heddle(int argc, char** argv, char** envp) {
  const char* mode = std::getenv("HEDDLE_RUN");
  if (mode == nullptr || *mode == '\0') return program(argc, argv, envp);
  const int status = heddle::rt::run_program({program, argc, argv, envp}, mode);
  // The program's main never ran in this process (the fork server): neither
  // may its atexit handlers and destructors, which would check or tear down
  // the state from before main.
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int __libc_start_main(int (*main)(int, char**, char**), int argc,
                                                                         char** argv, void (*init)(), void (*fini)(),
                                                                         void (*rtld_fini)(), void* stack_end) {
  program = main;
  heddle::rt::set_loader_fini(rtld_fini);
  return HEDDLE_REAL(__libc_start_main)(&main_under_heddle, argc, argv, init, fini,
                                        rtld_fini != nullptr ? &heddle::rt::loader_fini : nullptr, stack_end);
}

extern "C" __attribute__((visibility("default"), noreturn)) void exit(int status) {
  heddle::rt::exit_program(status);
}
