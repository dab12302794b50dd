// A lincheck crash as a heddle trace file, and its replay.
//
// The file is an ordinary heddle trace (heddle/trace.hpp, JSON): the header
// names the test, the seed, the strategy and the scenario's index (as its
// `iteration`), and, in `arguments`, which calls of that generated scenario
// the minimized one kept: "lincheck", then "init:<ids>", one "thread:<ids>"
// per thread of the parallel part (possibly empty), and "post:<ids>", ids
// being the calls' actor ids, comma-separated. The steps are the crashing
// run's decisions, as the engine takes them. A replay regenerates the
// scenario from the seed, keeps those calls, and follows the steps with the
// replay strategy: the run crashes again, or the replay says where it left
// the trace.
#pragma once

#include <string>
#include <vector>

#include "heddle/lincheck.hpp"
#include "heddle/trace.hpp"

namespace heddle::lincheck::detail {

// The call of `sc` with actor id `id`, or null.
const actor* find_call(const scenario& sc, std::size_t id);

// The header's `arguments` for scenario `sc`.
std::vector<std::string> kept_calls(const scenario& sc);

// The scenario trace `t` names, regenerated with the declaration's
// generators; throws heddle::usage_error (one line naming `path`) when the
// trace is not a lincheck crash trace or does not fit the declaration.
scenario scenario_of(const declaration& d, const trace& t, const std::string& path);

// `d`'s options as the trace recorded them (seed, strategy, max steps,
// memory policy, race detection).
lincheck::options options_of(const declaration& d, const trace& t);

// Replays the crash trace at `path` for test `test` (HEDDLE_LINCHECK_TEST
// under --heddle_replay): the process dies of the crash again, with the crash
// guard's message; if the run ends instead, returns why it did not crash.
// Throws heddle::usage_error for a trace that does not fit.
std::string replay_crash(const declaration& d, const std::string& path, const std::string& test,
                         const std::string& result_file);

}  // namespace heddle::lincheck::detail
