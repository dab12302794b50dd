// Scenario generation and minimization (scenario.cpp, minimize.cpp).
#pragma once

#include <cstdint>

#include "heddle/lincheck.hpp"
#include "lincheck/execution.hpp"

namespace heddle::lincheck::detail {

scenario generate_scenario(const erased_spec& spec, const lincheck::options& opts, random_source& r);

// A failing run: its scenario, what the run recorded, and the verdict.
struct failing_run {
  scenario sc;
  run_record run;
  judgement verdict;
  std::size_t reductions = 0;            // removals minimization kept
  std::size_t reductions_on_schedule = 0;  // of those, found by following the recorded schedule
};

// A smaller scenario to try while minimizing, and the schedule to follow
// first (the failing run's, in the smaller scenario's thread numbers).
struct removal {
  scenario sc;
  std::vector<schedule_entry> schedule;
};
// The candidates of one minimization round, biggest removal first: each
// whole thread of the parallel part (when there are two or more), then each
// call of the parallel part, then each call of the sequential parts.
std::vector<removal> removals(const scenario& sc, const std::vector<schedule_entry>& schedule);

// Removes threads and calls greedily while the scenario still fails the same
// way; each candidate first follows the failing schedule, then tries fresh
// schedules. Its runs and steps are added to `totals`.
failing_run minimize(executor& exec, failing_run failing, std::uint64_t seed, result& totals);

// The report of a failure: the scenario, the results, the interleaving, why.
// `generated`: the scenario came from the seed (check()), so the report says
// how to run it again; a given one (the RapidCheck front end) has its own way.
std::string format_report(const operation_names& names, const failing_run& f, const lincheck::options& opts,
                          std::size_t scenario_index, std::size_t original_calls, bool generated);
std::string scenario_text(const operation_names& names, const scenario& sc);

}  // namespace heddle::lincheck::detail
