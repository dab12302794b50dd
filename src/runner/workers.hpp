// Worker processes (options::parallel > 0): explore() forks N workers from
// the test process, so they run the registered body with no re-registration;
// each is pinned to its own CPU and claims iteration slots (shards.hpp) one at
// a time from a counter in shared memory.
//
// Contract: no completed iteration is lost and none runs twice. A worker
// streams the decisions of its iteration in flight into a step_log and
// publishes each finished iteration's record into a ring, both in memory it
// shares with the parent (stores, no syscalls); bugs and other rare events go
// through a pipe as JSON lines. When a worker dies in the middle of an
// iteration (a signal, exit(), or a hang past --iteration-timeout that the
// parent's watchdog kills), the parent writes that iteration's trace from the
// step log (the crash handler's note names the crash), reports it as a bug,
// and forks a replacement that goes on with the remaining slots. A worker
// killed from outside (SIGKILL, SIGTERM) has its in-flight iteration run
// again, once. Systematic strategies (dfs, dpor) explore one schedule after
// another and cannot split slots: they run in one worker.
#pragma once

#include <string_view>

#include "heddle/explore.hpp"
#include "runner/iteration_runner.hpp"

namespace heddle::detail {

result run_workers(const run_context& run);

// dfs and dpor: strategies whose iterations depend on all earlier ones.
bool is_systematic(std::string_view strategy_description);

}  // namespace heddle::detail
