// The setup every replay shares, in process (explore.cpp) and in the fork
// server (rt/fork_server.cpp): load the trace a replay follows, check that
// it was recorded for this test, and take from its header the options that
// decide how an iteration executes, so the replay runs under the rules the
// recording ran under whatever the caller set.
#pragma once

#include <string_view>

#include "heddle/options.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

// Loads opts.replay, recorded for `test`, and sets opts' seed, max_steps,
// fail_on_max_steps, spurious_wakeups, spurious_cas_failures, memory and
// detect_races from its header. Throws usage_error naming the problem (an
// unreadable or malformed trace, a trace of another test).
trace load_replay(options& opts, std::string_view test);

}  // namespace heddle::detail
