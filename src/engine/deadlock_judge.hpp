// The deadlock judge: a kind of test whose specification lets calls block
// (lincheck's partial operations: a take() on an empty queue) decides whether
// a deadlock is a bug before the engine reports it. A judge set for an engine
// is asked once per deadlock; it may end the iteration quietly (the model
// blocks there too), let the deadlock stand with a message of its own, or
// call it another kind of bug. Without a judge every deadlock is a bug.
#pragma once

#include <string>

#include "heddle/bug.hpp"

namespace heddle::detail {

class engine;

struct deadlock_verdict {
  bool quiet = false;  // not a bug: the iteration ends here
  bug_kind kind = bug_kind::deadlock;
  std::string message;  // empty: the engine's own description
};

// `described` is the engine's description of who waits for what.
using deadlock_judge = deadlock_verdict (*)(void* context, const std::string& described);

// Sets (or, with a null judge, clears) the judge of `e`'s deadlocks; one
// engine at a time has a judge. Called from a test body, which owns `context`.
void set_deadlock_judge(const engine* e, deadlock_judge judge, void* context) noexcept;

}  // namespace heddle::detail
