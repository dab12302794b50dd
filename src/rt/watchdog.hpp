// The fork server's watchdog: saying what a hung child's threads were doing (from /proc: each thread's
// state and the system call it is blocked in), named by operation where the
// child mirrored which thread runs which operation.
#pragma once

#include <sys/types.h>

#include <string>

#include "rt/fork_channel.hpp"

namespace heddle::rt {

// "operation 2 (worker) is blocked in read(); operation 1 (main) waits at
// join (prog.c:20)": every thread of `pid` not parked by heddle, then the last
// point of every blocked operation. Empty when /proc says nothing.
std::string describe_threads(pid_t pid, const fork_channel& ch);

}  // namespace heddle::rt
