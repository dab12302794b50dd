// Chrome trace-event JSON of a bug's trace, which Perfetto (ui.perfetto.dev)
// and chrome://tracing open: one process per trace (original, minimized), one
// thread track per operation (tid = operation id, named after it), each step a
// complete slice ("ph": "X") on a synthetic time axis where one step is one
// microsecond, and the bug as an instant event after the last step.
//
// Contract: the output is one JSON object {"traceEvents": [...],
// "displayTimeUnit": "ns"}; every event has name, ph, pid, tid and (except
// metadata) ts; slices have dur 1; args carry step, point, object, source
// location and whether the step preempted.
#pragma once

#include <string>
#include <vector>

#include "runner/timeline.hpp"

namespace heddle::detail {

std::string chrome_trace_json(const std::vector<timeline>& timelines);

}  // namespace heddle::detail
