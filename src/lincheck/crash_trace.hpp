// A lincheck failure (a crash, a non-linearizable result, any bug heddle
// found in a run) as a heddle trace file, and its replay.
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
// the trace. A replay of a failure other than a crash judges the run as
// check() does, and says whether it failed the same way.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "heddle/lincheck.hpp"
#include "heddle/trace.hpp"

namespace heddle::lincheck::detail {

// Where a failure's report, record and trace go.
struct crash_destination {
  std::string test;         // "suite.name"; empty from check()
  std::string result_file;  // `heddle test`'s records (empty: none)
  std::string directory;    // the trace's directory (empty: no trace)
  std::string program;      // the binary, which the trace names for `heddle replay`
};

// Saves a failing run of generated scenario `index` (whose calls `sc` kept)
// as `bug-N.json` under where.directory: `steps` as the engine took them,
// `found` the failure. Returns the path, or empty when the test has no name
// or no directory (or the file could not be written, said on stderr).
std::string save_trace(const declaration& d, const crash_destination& where, std::size_t index, const scenario& sc,
                       std::vector<trace_step> steps, bug found);
// The test's record for `heddle test` (runner/summary_json.hpp's fields that
// a lincheck run has, plus a "lincheck" object): registered.cpp.
nlohmann::json record_of(const std::string& id, const lincheck::options& o, const result& r);
// The report's closing lines for a saved trace: where it is and how to replay it.
std::string replay_hint(const crash_destination& where, const std::string& trace_file, std::string_view verb);

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

// What a replay came to: the failure again (its kind as check() names it,
// and its message), or why not.
struct replay_result {
  bool reproduced = false;
  std::string kind;
  std::string message;
};

// Replays the trace at `path` for test `test` (HEDDLE_LINCHECK_TEST under
// --heddle_replay): a crash kills the process again, with the crash guard's
// message; another failure is judged as check() judges it. Throws
// heddle::usage_error for a trace that does not fit.
replay_result replay_trace(const declaration& d, const std::string& path, const std::string& test,
                           const std::string& result_file);

}  // namespace heddle::lincheck::detail
