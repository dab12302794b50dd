// The setup every replay shares, in process (explore.cpp) and in the fork
// server (rt/fork_server.cpp): load the trace a replay follows, check that
// it was recorded for this test, and take from its header the options that
// decide how an iteration executes, so the replay runs under the rules the
// recording ran under whatever the caller set.
#pragma once

#include <string>
#include <string_view>

#include "heddle/options.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

// Loads opts.replay, recorded for `test`, and sets opts' seed, max_steps,
// fail_on_max_steps, spurious_wakeups, spurious_cas_failures, memory and
// detect_races from its header. Throws usage_error naming the problem (an
// unreadable or malformed trace, a trace of another test).
trace load_replay(options& opts, std::string_view test);

// The "Likely cause" of a replay that diverged from `recorded` while running
// `program` (empty when unknown): the trace may not match the binary (another
// program's, another heddle's, or edited), or the program depends on
// something heddle does not control. One sentence, for the divergence message.
std::string divergence_cause(const trace_header& recorded, std::string_view program);

}  // namespace heddle::detail
