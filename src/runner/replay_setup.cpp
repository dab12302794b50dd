// See replay_setup.hpp.
#include "runner/replay_setup.hpp"

#include <fmt/format.h>

#include "heddle/explore.hpp"

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
  return recorded;
}

}  // namespace heddle::detail
