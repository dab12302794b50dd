// The fork server's watchdog: saying what a hung child's threads were doing (from /proc: each thread's
// state and the system call it is blocked in), named by operation where the
// child mirrored which thread runs which operation.
#pragma once

#include <sys/types.h>

#include <string>

#include "rt/fork_channel.hpp"

namespace heddle::rt {

// "operation 2 (worker) is blocked in read(); operation 1 (main) waits at
// join (prog.c:20)": first what the operation `running` (named `who_runs`)
// does, the blocking call its thread is in (a futex call included: heddle
// parks only the others), or that it runs without reaching a scheduling point;
// then every other thread of `pid` not parked by heddle, then the last point
// of every blocked operation.
std::string describe_threads(pid_t pid, const fork_channel& ch, operation_id running, const std::string& who_runs);

}  // namespace heddle::rt
