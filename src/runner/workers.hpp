// Worker processes (options::parallel > 0): explore() forks N workers from
// the test process, so they run the registered body with no re-registration;
// each is pinned to its own CPU and claims blocks of iteration slots
// (shards.hpp: one learning window each) from a counter in shared memory.
//
// Contract: the result is the in-process run's, whatever the number of
// workers. A worker runs its block's slots in order (so the strategy learns
// what it would in process); a bug whose signature no lower slot has decided
// is a candidate, and the parent decides it only once every lower slot has
// finished: the lowest slot of a signature is finalized (with
// stop_on_first_bug, the lowest of all, and no worker starts a slot above a
// known bug). Statistics take the records in slot order up to the stop.
//
// No completed iteration is lost and none is counted twice. A worker
// streams the decisions of its iteration in flight into a step_log and
// publishes each finished iteration's record into a ring, both in memory it
// shares with the parent (stores, no syscalls); bugs and other rare events go
// through a pipe as JSON lines. When a worker dies in the middle of an
// iteration (a signal, exit(), or a hang past --iteration-timeout that the
// parent's watchdog kills), the parent writes that iteration's trace from the
// step log (the crash handler's note names the crash), reports it as a bug,
// and forks a replacement that goes on with the rest of the block, its
// strategy learning afresh (an iteration that ends its process ends its
// learning window, in every run). A worker killed from outside (SIGKILL,
// SIGTERM) has its in-flight iteration run again, once, after the replacement
// re-ran the window's earlier iterations for its strategy to learn them. Systematic strategies (dfs, dpor) explore one schedule after
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
