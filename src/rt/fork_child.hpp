// One iteration of the program in a child of the fork server (or, to replay
// under a debugger, in the program's own process).
//
// The engine runs with the OS-thread backend; the program's main() is
// operation 1, named "main". Every decision is asked of the strategy given:
// in a forked child a remote one that asks the parent through the fork
// channel. Returning from main or calling exit() is a scheduling point, so
// threads the program never joined may still run first; then the process
// exits as the program asked, its other threads stopped where they were. When
// the engine ends the iteration instead (a bug, a deadlock, max steps), the
// process ends at once, without unwinding its threads: C frames have no
// unwind tables, and the process is thrown away anyway.
#pragma once

#include <cstdint>

#include "engine/strategy.hpp"
#include "heddle/options.hpp"
#include "rt/fork_channel.hpp"

namespace heddle::rt {

using program_main = int (*)(int, char**, char**);

struct program_entry {
  program_main main = nullptr;
  int argc = 0;
  char** argv = nullptr;
  char** envp = nullptr;
};

// Runs the iteration, mirroring into `channel`; asks `s` for decisions (a
// remote strategy when forked). Never returns: the process exits.
[[noreturn]] void run_iteration(const program_entry& program, const options& o, detail::strategy& s,
                                fork_channel& channel);

// exit(status) from the program, or main returning status: under control a
// scheduling point first, then the C library's exit.
[[noreturn]] void exit_program(int status);

// A strategy that asks the fork server's parent for every decision.
std::unique_ptr<detail::strategy> make_remote_strategy(fork_channel& channel);

// Futex on a word shared between processes.
void shared_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, long timeout_ns) noexcept;
void shared_wake(std::atomic<std::uint32_t>& word) noexcept;

}  // namespace heddle::rt
