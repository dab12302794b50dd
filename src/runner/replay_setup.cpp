// See replay_setup.hpp.
#include "runner/replay_setup.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "heddle/version.hpp"

namespace heddle::detail {

trace load_replay(options& opts, std::string_view test) {
  trace recorded;
  try {
    recorded = load_trace(opts.replay);
  } catch (const trace_error& e) {
    throw usage_error(e.what());
  }
  if (recorded.header.test != test)
    throw usage_error(fmt::format("trace '{}' was recorded for test '{}', not '{}'", opts.replay,
                                  recorded.header.test, test));
  const trace_header& h = recorded.header;
  opts.seed = h.seed;
  opts.max_steps = h.max_steps;
  opts.fail_on_max_steps = h.fail_on_max_steps;
  opts.spurious_wakeups = h.spurious_wakeups;
  opts.spurious_cas_failures = h.spurious_cas_failures;
  opts.memory = h.memory;
  opts.memory_model = h.memory_model;
  opts.detect_races = h.detect_races;
  opts.expect_exit = h.expect_exit;
  // A file the caller names (HEDDLE_SUPPRESSIONS) wins; else the run's.
  if (opts.suppressions.empty()) opts.suppressions = h.suppressions;
  return recorded;
}

std::string divergence_cause(const trace_header& recorded, std::string_view program) {
  namespace fs = std::filesystem;
  const auto same_file = [](std::string_view a, std::string_view b) {
    std::error_code ec;
    const bool same = fs::equivalent(fs::path(a), fs::path(b), ec);
    return ec ? fs::path(a).lexically_normal() == fs::path(b).lexically_normal() : same;
  };
  if (!recorded.program.empty() && !program.empty() && !same_file(recorded.program, program))
    return fmt::format("the trace was recorded from {}, not from {}: it may not match this binary", recorded.program,
                       program);
  if (!recorded.heddle_version.empty() && recorded.heddle_version != version)
    return fmt::format("the trace was recorded by heddle {}, this is heddle {}: it may not match this binary",
                       recorded.heddle_version, version);
  return "the trace may not match this binary (edited by hand, or recorded from another build of it), or the "
         "program depends on something heddle does not control (real time, input, addresses, unseeded randomness, "
         "or state left over from an earlier iteration)";
}

}  // namespace heddle::detail
