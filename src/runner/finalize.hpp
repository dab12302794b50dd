// The one place where a found bug's recorded trace becomes the trace that is
// saved and reported: trace minimization hooks in here.
//
// Contract: called once per bug signature, in the process that ran the
// iteration (this process, or the worker that found it), after the iteration
// and before its trace file is written. It returns a trace that reproduces
// the same signature; returning `recorded` unchanged is always correct. It
// must not use the engine that ran the iteration (whose outcome the report
// still reads): make a new one. Crashes found by workers are finalized by no
// one: the worker is dead, and replaying a crash in the parent would kill it.
#pragma once

#include <functional>

#include "heddle/explore.hpp"

namespace heddle::detail {

struct finalize_context {
  const options& opts;
  const std::function<void()>& body;
  const test_identity& id;
};

trace finalize_trace(const trace& recorded, const finalize_context& ctx);

}  // namespace heddle::detail
