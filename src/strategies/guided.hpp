// `guided`: follows a schedule leniently and completes it without preemptions.
// The minimizer (src/runner/minimize.cpp) drives it; it is not a spec users type.
//
// A guided iteration takes each decision from, in this order:
//   1. the prefix: step i follows prefix[i] when that decision is possible (the
//      operation is enabled, the value is below the bound); otherwise the default;
//   2. the overrides: a decision keyed by *who decides and how far it got*
//      (the current operation and the number of decisions it reached before),
//      which stays meaningful when an earlier part of the schedule changed;
//   3. the default, a non-preemptive policy: keep running the current operation
//      while it is enabled; at a yield or sleep, hand over to the next enabled
//      operation in id order; otherwise the lowest id not merely waiting for a
//      timeout; a data choice takes 0 (no spurious event).
// It counts preemptions (the current operation was enabled, did not yield, and
// another one was chosen) and lists every decision that differed from the
// default, keyed, so the minimizer can rebuild the same run from overrides alone.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/strategy.hpp"

namespace heddle::detail {

// Who takes a decision and how far it got: the `event`-th decision reached by
// `operation` (0 for the very first decision, which no operation reached).
struct decision_key {
  operation_id operation = 0;
  std::uint64_t event = 0;
  step_kind kind = step_kind::schedule;
  friend auto operator<=>(const decision_key&, const decision_key&) = default;
};

// A decision that differs from the non-preemptive default.
struct deviation {
  decision_key key;
  std::uint64_t value = 0;   // the operation chosen, or the value taken
  bool preemption = false;   // a schedule decision that preempted the current operation
  std::uint64_t step = 0;    // where it happened in the run that recorded it
};

struct guide {
  std::vector<trace_step> prefix;
  std::vector<deviation> overrides;
  // Stops an iteration past this many steps (a completion that spins).
  std::uint64_t step_limit = UINT64_MAX;
};

class guided_strategy final : public strategy {
 public:
  explicit guided_strategy(guide g);
  void begin_iteration(std::uint64_t index, std::uint64_t seed) override;
  std::size_t next_operation(const decision_context& ctx) override;
  std::uint64_t next_value(const decision_context& ctx, const choice& c) override;
  void end_iteration(const iteration_summary&) override {}
  std::string describe() const override { return "guided"; }
  std::string stop_reason() const override { return stop_reason_; }

  // What the last iteration did.
  std::uint64_t preemptions() const noexcept { return preemptions_; }
  const std::vector<deviation>& deviations() const noexcept { return deviations_; }
  // Prefix steps that could not be followed (0: the prefix replayed exactly).
  std::uint64_t missed() const noexcept { return missed_; }

 private:
  decision_key key_of(const decision_context& ctx, step_kind kind);
  const deviation* override_for(const decision_key& key) const;

  guide guide_;
  std::map<decision_key, std::size_t> override_index_;
  std::vector<std::uint64_t> events_;  // index = operation id: decisions it reached
  std::vector<deviation> deviations_;
  std::uint64_t preemptions_ = 0;
  std::uint64_t missed_ = 0;
  std::string stop_reason_;
};

}  // namespace heddle::detail
