// One iteration of the program in a child of the fork server (or, to replay
// under a debugger, in the program's own process).
//
// The engine runs with the OS-thread backend; the program's main() is
// operation 1, named "main". Every decision is taken by the strategy given:
// in a forked child the parent's strategy as inherited by fork, wrapped so
// that each decision is logged in the fork channel for the parent. Returning from main or calling exit() is a scheduling point, so
// threads the program never joined may still run first; then the process
// exits as the program asked, its other threads stopped where they were. When
// the engine ends the iteration instead (a bug, a deadlock, max steps), the
// process ends at once, without unwinding its threads: C frames have no
// unwind tables, and the process is thrown away anyway.
#pragma once

#include <cstdint>
#include <memory>

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
// logging strategy when forked). Never returns: the process exits.
[[noreturn]] void run_iteration(const program_entry& program, const options& o, detail::strategy& s,
                                fork_channel& channel);

// Done once in the fork server before its first fork, so that no child does
// it again: installs the crash handlers, looks up the C library functions a
// child calls past their interposers, maps the stacks of a few operation
// threads, and pins this process to the CPU it runs on (the children inherit
// all of it; a hand-off between threads on one CPU is cheap).
void prepare_children(const options& o);

// exit(status) from the program, or main returning status: under control a
// scheduling point first, then the C library's exit.
[[noreturn]] void exit_program(int status);

// `inner` (the child's copy of the parent's strategy) logging every decision
// into `channel`. When the log is full it signals `parent_event` (an eventfd)
// and waits until the parent has taken the log (fork_channel.hpp).
std::unique_ptr<detail::strategy> make_logging_strategy(detail::strategy& inner, fork_channel& channel,
                                                        int parent_event);

// Futex on a word shared between processes.
void shared_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, long timeout_ns) noexcept;
void shared_wake(std::atomic<std::uint32_t>& word) noexcept;

}  // namespace heddle::rt
