// What a verdict claims (statistics::caveats, result::verdict): one line a
// user can trust, and a sentence for each thing a pass did not check.
//
// A pass is qualified whenever its coverage is narrower than it sounds:
// iterations cut at max_steps (nothing after the cut was run), atomics with
// memory orders weaker than seq_cst (heddle runs them as seq_cst, so only
// sequentially consistent interleavings were checked), and spurious events an
// exhaustive strategy explored once per call site rather than in every
// combination. A cut run never reads as a plain "passed" or "verified"; its
// exit status stays 0 unless the user asked max_steps to fail
// (fail_on_max_steps), which makes a cut iteration a livelock bug instead.
#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "runner/verdict.hpp"

namespace heddle {

namespace {

std::string plural(std::uint64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// "all 5 iterations" or "2 of 5 iterations": which iterations a caveat is about.
std::string share_of(std::uint64_t count, std::uint64_t iterations) {
  return count == iterations ? fmt::format("all {}", plural(iterations, "iteration"))
                             : fmt::format("{} of {}", count, plural(iterations, "iteration"));
}

}  // namespace

std::vector<std::string> statistics::caveats() const {
  std::vector<std::string> out;
  if (max_steps_hits > 0) {
    const std::string limit = max_steps > 0 ? fmt::format(" {}", max_steps) : std::string{};
    out.push_back(fmt::format("{} ended at --max-steps{}: nothing after step{} was checked in {}; raise it{} or "
                              "make it a bug with --fail-on-max-steps",
                              share_of(max_steps_hits, iterations), limit, limit, max_steps_hits == 1 ? "it" : "them",
                              max_steps > 0 ? fmt::format(" (--max-steps {})", max_steps * 10) : std::string{}));
  }
  if (weak_order_iterations > 0)
    out.push_back(fmt::format("{} used atomics with memory orders weaker than seq_cst; heddle runs them as seq_cst, "
                              "so only sequentially consistent interleavings were checked, not the reorderings those "
                              "orders allow (--memory-model rc11 explores them)",
                              share_of(weak_order_iterations, iterations)));
  if (plain_unseen_iterations > 0)
    out.push_back(fmt::format("{} relied on atomic orders weaker than seq_cst, explored under RC11 for the atomics; "
                              "plain (non-atomic) memory is not seen in code not built with heddle-cc/heddle-c++, "
                              "so a plain access ordered only through those atomics (a data race under the C++ "
                              "memory model) was not checked (build the test with heddle-c++, or make the data it "
                              "publishes atomic)",
                              share_of(plain_unseen_iterations, iterations)));
  if (sc_in_run_order_iterations > 0)
    out.push_back(fmt::format("{} took happens-before between seq_cst accesses of two threads as part of RC11's "
                              "seq_cst order (psc) where, in a thread, only accesses of one location lay between a "
                              "seq_cst access and the synchronization (after the first, or before the second); RC11 "
                              "counts it only if an access of another location came between, as a plain one that "
                              "heddle does not tell apart there may, so executions RC11 allows may be missing "
                              "(docs/memory-model.md, \"What is approximated\")",
                              share_of(sc_in_run_order_iterations, iterations)));
  if (held_wait_iterations > 0)
    out.push_back(fmt::format("{} held back an operation whose try of a wait loop (the steps between two yields or "
                              "sleeps) repeated the one before with nothing it read changed, or (rc11) cut one that "
                              "read the same stores again; dpor assumes such a try has no effect but its reads, so "
                              "a loop that counts its tries and gives up (libstdc++'s counting_semaphore, latch and "
                              "atomic::wait do) was explored giving up only where nothing else could run: run the "
                              "default strategy on it too (docs/strategies.md, \"Wait loops under dpor\")",
                              share_of(held_wait_iterations, iterations)));
  if (bounded_choices > 0)
    out.push_back(fmt::format("spurious wake-ups and compare-exchange failures were explored once per call site in "
                              "each schedule ({} more were left at their usual outcome)",
                              bounded_choices));
  return out;
}

std::string result::verdict() const {
  if (bug) return fmt::format("bug: {}: {}", to_string(bug->kind), bug->message);
  if (divergence) return "diverged: " + *divergence;
  if (interrupted && stats.iterations == 0) return "not run: interrupted (SIGINT or SIGTERM) before it began";
  if (interrupted) return fmt::format("{} ({})", detail::pass_verdict(stats), detail::stopped_early);
  return detail::pass_verdict(stats);
}

namespace detail {

bool verified(const statistics& s) noexcept { return s.exhausted && s.max_steps_hits == 0; }

std::string pass_verdict(const statistics& s) {
  const bool weak = s.weak_order_iterations > 0;
  if (s.max_steps_hits > 0 && s.max_steps_hits == s.iterations) {
    const std::string limit = s.max_steps > 0 ? fmt::format(" {}", s.max_steps) : std::string{};
    return fmt::format("passed {}, all cut at --max-steps{}: nothing after step{} was checked",
                       plural(s.iterations, "iteration"), limit, limit);
  }
  if (s.exhausted) {
    const char* const waits =
        s.held_wait_iterations > 0 ? ", assuming a wait loop's try that saw nothing change has no effect" : "";
    const std::string all =
        fmt::format("explored all {}", plural(s.schedules > 0 ? s.schedules : s.iterations,
                                              s.schedules_are_executions ? "execution" : "schedule"));
    if (s.max_steps_hits > 0)
      return fmt::format("passed, cut: {}, {} of them cut at --max-steps {} (not verified)", all, s.max_steps_hits,
                         s.max_steps);
    // Under rc11 "verified" names its model; atomics that still ran as
    // seq_cst there (push-button mixed sizes) keep the sc wording.
    if (weak || (s.memory_model == memory_model::sc && s.bounded_choices > 0))
      return fmt::format("passed: {}, verified for sequentially consistent interleavings only{}{}", all,
                         s.bounded_choices > 0 ? " and spurious events once per call site" : "", waits);
    // Relaxed atomics in code whose plain memory heddle does not see: the
    // atomics are verified, what they publish is not (the caveat says why).
    if (s.memory_model == memory_model::rc11)
      return fmt::format("passed: {}, verified under RC11{}{}{}{}", all,
                         s.plain_unseen_iterations > 0 ? " for atomics only" : "",
                         s.sc_in_run_order_iterations > 0 ? ", with seq_cst accesses ordered by happens-before" : "",
                         s.bounded_choices > 0 ? " with spurious events once per call site" : "", waits);
    return fmt::format("passed: {} (verified{})", all, waits);
  }
  if (s.max_steps_hits > 0)
    return fmt::format("passed, cut: no bug in {}, {} of them cut at --max-steps {}", plural(s.iterations, "iteration"),
                       s.max_steps_hits, s.max_steps);
  return fmt::format("passed: no bug in {}", plural(s.iterations, "iteration"));
}

}  // namespace detail

}  // namespace heddle
