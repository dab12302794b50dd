// A found bug made ready to save and report: what the runner's finalize step
// calls once per bug signature.
//
// Contract: finalize_bug() minimizes the recorded trace in a child process
// (fork), so a candidate schedule that crashes or hangs costs the
// minimization, never the run: the child resets the crash handlers, reports
// through a pipe and is killed past the time limit plus a margin. Without a
// minimized trace (a trace that does not replay, a child that died,
// minimization off) the saved trace is the recorded one. `file_text()` is the
// trace file (timeline.hpp's layout) and `timelines()` what the text and HTML
// reports show: the original, then the minimized trace; both are made when
// asked for, from what finalize_bug() copied without formatting.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "runner/minimize.hpp"
#include "runner/timeline.hpp"

namespace heddle::detail {

struct finalized_bug {
  heddle::trace saved;              // what replay replays: the minimized trace, else the recorded one
  bool minimized = false;
  std::string reason;               // why it was not minimized
  std::uint64_t runs = 0;           // guided runs the minimizer spent
  std::chrono::nanoseconds elapsed{0};

  // What the text and HTML reports show: the original, then the minimized
  // trace when there is one. Built when asked: a bug that is neither printed
  // nor saved costs no formatting.
  std::vector<timeline> timelines() const;
  // The trace file: `saved` annotated, the original under "original".
  std::string file_text() const;
  // The same from timelines() made already.
  std::string file_text(const std::vector<timeline>& made) const;

  // The minimizer's trace file and its timelines, when minimized.
  std::string minimized_text;
  std::vector<timeline> minimized_timelines;
  // The recorded iteration's annotations, when saved as recorded.
  std::shared_ptr<const recorded_annotations> recorded;
};

// `outcome`: the engine's record of the recorded iteration (names, objects,
// source locations), used when the trace is saved as recorded.
finalized_bug finalize_bug(const std::function<void()>& body, const trace& recorded, const iteration_outcome& outcome,
                           const minimize_limits& limits = {}, bool enabled = true,
                           const input_reduction* reduce = nullptr);

}  // namespace heddle::detail
