// `replay`: follows the decisions of a recorded trace and checks, at every
// step, that the program is where the trace says it was: the chosen operation
// is enabled, paused at the same kind of point on the same object; a data
// choice is of the same kind, within its bound. On the first difference it
// stops the iteration and says what was expected and what happened.
#include <fmt/format.h>

#include "strategies/strategies.hpp"

namespace heddle::detail {

replay_strategy::replay_strategy(std::vector<trace_step> steps, std::string recorded_spec)
    : steps_(std::move(steps)), recorded_spec_(std::move(recorded_spec)) {
  if (recorded_spec_.starts_with("fair(")) {
    try {
      fair_from_ = make_strategy(recorded_spec_)->fair_from();
    } catch (const std::exception&) {  // a spec this version cannot build: judged as unfair
    }
  }
}

void replay_strategy::begin_iteration(std::uint64_t, std::uint64_t) {
  position_ = 0;
  divergence_.clear();
}

namespace {
const char* kind_word(step_kind k) {
  switch (k) {
    case step_kind::schedule: return "a scheduling decision";
    case step_kind::choose_bool: return "a boolean choice";
    case step_kind::choose_int: return "an integer choice";
  }
  return "a decision";
}
}  // namespace

bool replay_strategy::matches(const trace_step& expected, step_kind kind, point_kind point,
                              object_id object, const char* what) {
  if (expected.kind != kind) {
    divergence_ = fmt::format("step {}: the trace has {} but the program reached {}", position_,
                              kind_word(expected.kind), kind_word(kind));
    return false;
  }
  if (expected.point != point || expected.object != object) {
    divergence_ = fmt::format("step {}: the trace expects {} at {} on object #{}, but it is at {} on object #{}",
                              position_, what, to_string(expected.point), expected.object,
                              to_string(point), object);
    return false;
  }
  return true;
}

std::size_t replay_strategy::next_operation(const decision_context& ctx) {
  if (position_ >= steps_.size()) {
    divergence_ = fmt::format("the trace ends after {} steps, but the program went on", steps_.size());
    return stop;
  }
  const trace_step& expected = steps_[position_];
  const pending_operation* chosen = nullptr;
  std::size_t index = 0;
  for (std::size_t i = 0; i < ctx.enabled.size(); ++i)
    if (expected.kind == step_kind::schedule && ctx.enabled[i].id == expected.value) {
      chosen = &ctx.enabled[i];
      index = i;
    }
  if (expected.kind == step_kind::schedule && chosen == nullptr) {
    std::string enabled;
    for (const pending_operation& p : ctx.enabled) enabled += fmt::format("{}{}", enabled.empty() ? "" : ", ", p.id);
    divergence_ = fmt::format("step {}: the trace runs operation {}, which is not enabled (enabled: {})",
                              position_, expected.value, enabled);
    return stop;
  }
  const std::string what = fmt::format("operation {}", expected.value);
  if (!matches(expected, step_kind::schedule, chosen ? chosen->point : point_kind::start,
               chosen ? chosen->object : 0, what.c_str()))
    return stop;
  ++position_;
  return index;
}

std::uint64_t replay_strategy::next_value(const decision_context&, const choice& c) {
  if (position_ >= steps_.size()) {
    divergence_ = fmt::format("the trace ends after {} steps, but the program went on", steps_.size());
    return stop;
  }
  const trace_step& expected = steps_[position_];
  if (!matches(expected, c.kind, c.point, c.object, "a choice")) return stop;
  if (expected.value >= c.bound) {
    divergence_ = fmt::format("step {}: the trace chooses {}, but this choice is below {}", position_,
                              expected.value, c.bound);
    return stop;
  }
  ++position_;
  return expected.value;
}

}  // namespace heddle::detail
