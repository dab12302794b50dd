// A found bug made ready to save and report: what the runner's finalize step
// calls once per bug signature.
//
// Contract: finalize_bug() minimizes the recorded trace in a child process
// (fork), so a candidate schedule that crashes or hangs costs the
// minimization, never the run: the child resets the crash handlers, reports
// through a pipe and is killed past the time limit plus a margin. Without a
// minimized trace (a trace that does not replay, a child that died,
// minimization off) the saved trace is the recorded one. `file_text` is the
// trace file (timeline.hpp's layout) and `timelines` what the text and HTML
// reports show: the original, then the minimized trace.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "runner/minimize.hpp"
#include "runner/timeline.hpp"

namespace heddle::detail {

struct finalized_bug {
  heddle::trace saved;              // what replay replays: the minimized trace, else the recorded one
  std::string file_text;            // the trace file: `saved` annotated, the original under "original"
  std::vector<timeline> timelines;  // the original, then the minimized one when there is one
  bool minimized = false;
  std::string reason;               // why it was not minimized
  std::uint64_t runs = 0;           // guided runs the minimizer spent
  std::chrono::nanoseconds elapsed{0};
};

// `outcome`: the engine's record of the recorded iteration (names, objects,
// source locations), used when the trace is saved as recorded.
finalized_bug finalize_bug(const std::function<void()>& body, const trace& recorded, const iteration_outcome& outcome,
                           const minimize_limits& limits = {}, bool enabled = true);

}  // namespace heddle::detail
