// The HTML report of a bug's trace: one self-contained file (style and script
// inline, no network) with one swimlane per operation over the steps, a
// tooltip and a detail line for the step under the pointer (index, point kind,
// object, source location), a toggle between the original and the minimized
// trace, and the bug (kind, message, location) after the last step.
//
// Contract: the lanes are server-side SVG, so the page shows without script;
// each lane is a <g class="lane" data-operation="N">, each step a rect.step.
// Every text that comes from the program (names, messages, paths) is escaped.
#pragma once

#include <string>
#include <vector>

#include "runner/timeline.hpp"

namespace heddle::detail {

// `timelines`: the original first, then the minimized one if any. Not empty.
std::string html_report(const std::vector<timeline>& timelines);

// Writes the HTML report next to a trace file (bug-3.json: bug-3.html) and
// returns its path; "" when it could not be written (a report is a courtesy:
// the trace file is what matters).
std::string write_html_report(const std::string& trace_file, const std::vector<timeline>& timelines);

}  // namespace heddle::detail
