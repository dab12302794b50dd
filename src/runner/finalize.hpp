// The one place where a found bug's recorded trace becomes the trace that is
// saved and reported: trace minimization hooks in here.
//
// Contract: called once per bug signature, in the process that ran the
// iteration (this process, or the worker that found it), after the iteration
// and before its trace file is written. It returns the trace to save, which
// reproduces the same signature (the minimized trace, or `recorded` when it
// could not be minimized: src/runner/saved_bug.hpp), the trace file's text
// and the timelines the text and HTML reports show. It must not use the
// engine that ran the iteration (whose outcome the report still reads): the
// minimizer runs in a child process with an engine of its own. A crash found
// by a worker is finalized by the parent, from the worker's step log, with an
// outcome that knows only the bug (the minimizer runs each of its candidates
// in a process of its own).
#pragma once

#include <functional>

#include "heddle/explore.hpp"
#include "runner/saved_bug.hpp"

namespace heddle::detail {

struct finalize_context {
  const options& opts;
  const std::function<void()>& body;
  const test_identity& id;
  const input_reduction* reduce = nullptr;  // the test's smaller inputs (lincheck's calls)
};

finalized_bug finalize_trace(const trace& recorded, const iteration_outcome& outcome, const finalize_context& ctx);

}  // namespace heddle::detail
