// Scenario generation (scenario.cpp), a scenario as a trace's input (its
// calls, in the header's arguments), the smaller scenarios minimization tries,
// and the report of a failure (report.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heddle/lincheck.hpp"
#include "heddle/trace.hpp"
#include "lincheck/execution.hpp"

namespace heddle::lincheck::detail {

scenario generate_scenario(const erased_spec& spec, const lincheck::options& opts, random_source& r);
scenario generate_scenario(const declaration& d, std::uint64_t seed, std::size_t index);

// A failing run: its scenario, what the run recorded, and the verdict.
struct failing_run {
  scenario sc;
  run_record run;
  judgement verdict;
  std::size_t reductions = 0;            // removals minimization kept
  std::size_t reductions_on_schedule = 0;  // of those, found by following the recorded schedule
};

// Which calls of a generated scenario a run makes, as the runner's input
// (trace_header::arguments, runner/minimize.hpp): "lincheck", "scenario:S",
// "removals:R/K" (R removals kept, K of them on the failing schedule),
// "init:<ids>", one "thread:<ids>" per thread of the parallel part (possibly
// empty) and "post:<ids>", ids being the calls' actor ids, comma-separated.
struct kept_scenario {
  std::size_t index = 0;  // the generated scenario
  scenario sc;            // the calls kept
  std::size_t reductions = 0;
  std::size_t reductions_on_schedule = 0;
};
std::vector<std::string> input_of(const kept_scenario& k);
// The scenario a trace runs: its arguments, else its first data choice (the
// body's choice of scenario), else scenario 0. Throws heddle::usage_error,
// one line naming `where`, when the arguments do not fit the declaration.
kept_scenario scenario_of(const declaration& d, const trace& t, const std::string& where);
kept_scenario scenario_of(const declaration& d, std::uint64_t seed, const std::vector<std::string>& arguments,
                          const std::string& where);

// The candidates of one minimization round, biggest removal first: each
// whole thread of the parallel part (when there are two or more), then each
// call of the parallel part, then each call of the sequential parts.
std::vector<scenario> removals(const scenario& sc);

// The report of a failure: the scenario, the results, the interleaving, why.
// `generated`: the scenario came from the seed (check()), so the report says
// how to run it again; a given one (the RapidCheck front end) has its own way.
std::string format_report(const operation_names& names, const failing_run& f, const lincheck::options& opts,
                          std::size_t scenario_index, std::size_t original_calls, bool generated);
std::string scenario_text(const operation_names& names, const scenario& sc);
// The report's closing lines for a saved trace: where it is and how to replay it.
std::string replay_hint(const std::string& program, const std::string& test, const std::string& trace_file,
                        std::string_view verb);

}  // namespace heddle::lincheck::detail
