// Monitors: safety checks and liveness (heddle/monitor.hpp states the rules).
//
// A monitor runs its handlers in the operation that notifies it, with no
// scheduling point. Its liveness is judged by the runtime, which is the
// engine's iteration watch: at the end of the iteration however it ends
// (every operation finished, only idle actors left, max_steps), and at the
// step where a hot monitor's temperature would pass its threshold, which
// the runtime asks the engine to stop at (engine::watch_step) rather than
// counting at every decision. Temperature counts only steps in the fair part
// of a fair(S) strategy (engine::fair_from), so S's unfairness never heats a
// monitor; a strategy that is not fair has no temperature check at all.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "runtime/actor_runtime.hpp"

namespace heddle {

namespace {
constexpr int transition_limit = 1000;  // transitions in a row: a loop of entry actions
}  // namespace

namespace detail {

monitor_record* actor_runtime::record_of(const monitor& m) noexcept {
  for (monitor_record& r : monitors)
    if (r.object.get() == &m) return &r;
  return nullptr;
}

monitor* actor_runtime::find_monitor(std::type_index type) noexcept {
  for (monitor_record& r : monitors)
    if (r.type == type) return r.object.get();
  return nullptr;
}

monitor& actor_runtime::adopt_monitor(std::type_index type, std::unique_ptr<monitor> m, const std::string& name) {
  if (find_monitor(type) != nullptr)
    report_misuse(fmt::format("register_monitor<{}>: the iteration has that monitor already (register it once, before "
                              "notifying it)",
                              name));
  monitor& adopted = *m;
  monitor_access::name(adopted) = name;
  monitors.push_back({type, std::move(m), 0, {}, 0});
  machine_core& core = monitor_access::core(adopted);
  state_definition* start = core.find_state(core.start);
  if (start == nullptr)
    report_misuse(core.start.empty()
                      ? fmt::format("monitor {} has no start state: call start_in(\"...\") in its constructor", name)
                      : fmt::format("monitor {} starts in state '{}', which it does not declare", name, core.start));
  core.stack = {start};
  monitor_access::started(adopted) = true;
  note(fmt::format("monitor {} starts in {}{}", name, start->name,
                   start->heat == temperature::hot ? " (hot)" : ""));
  if (start->entry) start->entry();
  monitor_access::settle(adopted, "on entry", std::source_location{});
  return adopted;
}

void actor_runtime::notify(monitor& m, std::unique_ptr<event_base> event, std::source_location loc) {
  monitor_access::observe(m, *event, loc);
}

void actor_runtime::monitor_settled(monitor& m, std::source_location loc) {
  monitor_record* r = record_of(m);
  if (r == nullptr) return;
  const bool was_hot = r->hot_since != 0;
  if (m.is_hot() && !was_hot) {
    r->hot_since = engine_.step_count() + 1;  // +1: 0 means cold
    r->hot_where = loc;
  } else if (!m.is_hot()) {
    r->hot_since = 0;
  }
  const std::uint64_t h = mix(std::hash<std::string>{}(r->object->name()) ^
                              mix(std::hash<std::string_view>{}(m.current_state()) ^ m.state_hash()));
  hash_total += h - r->contribution;
  r->contribution = h;
  publish_hash();
  if (m.is_hot() != was_hot) watch_temperatures();
}

std::uint64_t actor_runtime::threshold_of(const monitor_record& m) const noexcept {
  if (const std::uint64_t own = monitor_access::threshold(*m.object); own != 0) return own;
  const std::uint64_t max_steps = engine_.config().max_steps;
  const std::uint64_t fair = engine_.fair_from();
  return fair < max_steps ? std::max<std::uint64_t>((max_steps - fair) / 2, 1) : 0;
}

namespace {
// The step at which a monitor hot since `since` (a step count) passes its
// threshold, counting only the fair part.
std::uint64_t boiling_step(std::uint64_t since, std::uint64_t fair_from, std::uint64_t threshold) {
  return std::max(since, fair_from) + threshold;
}
}  // namespace

void actor_runtime::watch_temperatures() {
  const std::uint64_t fair = engine_.fair_from();
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  if (fair < engine_.config().max_steps)
    for (const monitor_record& r : monitors)
      if (r.hot_since != 0)
        if (const std::uint64_t t = threshold_of(r); t != 0) first = std::min(first, boiling_step(r.hot_since - 1, fair, t));
  engine_.watch_step(first);
}

void actor_runtime::at_step(std::uint64_t step) {
  const std::uint64_t fair = engine_.fair_from();
  for (const monitor_record& r : monitors) {
    if (r.hot_since == 0) continue;
    const std::uint64_t t = threshold_of(r);
    if (t != 0 && step >= boiling_step(r.hot_since - 1, fair, t)) {
      report_hot(r, fmt::format("for {} steps of the fair part of the schedule (its temperature threshold): a fair "
                                "scheduler did not cool it",
                                t));
      return;
    }
  }
  watch_temperatures();
}

void actor_runtime::at_end(iteration_end how) {
  for (const monitor_record& r : monitors) {
    if (r.hot_since == 0) continue;
    if (how != iteration_end::max_steps) {
      report_hot(r, "at the end of the iteration: every operation finished or waits for an event, so nothing will "
                    "cool it");
      return;
    }
    const bool fair = engine_.fair_from() < engine_.config().max_steps;
    if ((fair && max_steps_policy == max_steps_liveness::fair_only) || max_steps_policy == max_steps_liveness::always) {
      report_hot(r, fmt::format("when max_steps ({}) ended the iteration{}", engine_.config().max_steps,
                                fair ? ", after a fair part of the schedule" : ""));
      return;
    }
  }
}

void actor_runtime::report_hot(const monitor_record& r, const std::string& why) {
  engine_.report(bug_kind::liveness,
                 fmt::format("monitor {} was in hot state '{}' {}", r.object->name(), r.object->current_state(), why),
                 r.hot_where, false);
}

monitor* find_monitor(std::type_index type) { return runtime().find_monitor(type); }

monitor& adopt_monitor(std::type_index type, std::unique_ptr<monitor> m, const std::string& name) {
  return runtime().adopt_monitor(type, std::move(m), name);
}

void notify_monitor(monitor& m, std::unique_ptr<event_base> event, std::source_location loc) {
  runtime(loc).notify(m, std::move(event), loc);
}

}  // namespace detail

// --- heddle::monitor ----------------------------------------------------------

std::string_view monitor::current_state() const { return core_.current(); }

bool monitor::is_hot() const noexcept {
  return !core_.stack.empty() && core_.stack.back()->heat == detail::temperature::hot;
}

void monitor::go_to(std::string_view target, std::source_location loc) {
  if (core_.pending != detail::machine_core::transition_kind::none)
    report_misuse(fmt::format("monitor {} requested two transitions in one handler", name_), loc);
  if (core_.find_state(target) == nullptr)
    report_misuse(fmt::format("monitor {} has no state named '{}'", name_, target), loc);
  core_.pending = detail::machine_core::transition_kind::go_to;
  core_.pending_target = std::string(target);
}

void monitor::check(bool condition, std::string_view message, std::source_location loc) {
  if (condition) return;
  assertion_failed(fmt::format("monitor {} in state '{}': {}", name_, current_state(), message), loc);
}

void monitor::observe(detail::event_base& e, std::source_location loc) {
  const detail::state_definition::rule* r = core_.stack.back()->find(e.type());
  if (r == nullptr)
    report_bug(bug_kind::unhandled_event,
               fmt::format("monitor {} in state '{}' received event {}, which that state neither handles nor ignores",
                           name_, current_state(), e.name()),
               loc);
  const std::string cause = "on " + e.name();
  switch (r->kind) {
    case detail::event_rule::ignore:
    case detail::event_rule::defer:
    case detail::event_rule::push:  // not declarable on a monitor (static_assert in state_builder)
      return;
    case detail::event_rule::handle:
      r->action(e);
      break;
    case detail::event_rule::go_to: {
      detail::state_definition* from = core_.stack.back();
      detail::state_definition* target = core_.find_state(r->target);
      if (target == nullptr) report_misuse(fmt::format("monitor {} has no state named '{}'", name_, r->target), loc);
      if (from->exit) from->exit();
      if (r->action) r->action(e);
      core_.stack.back() = target;
      detail::runtime().note(fmt::format("monitor {} goes {} -> {} {}{}", name_, from->name, target->name, cause,
                                         target->heat == detail::temperature::hot ? " (hot)" : ""));
      if (target->entry) target->entry();
      break;
    }
  }
  settle(cause, loc);
}

void monitor::settle(const std::string& cause, std::source_location loc) {
  for (int moves = 0; core_.pending != detail::machine_core::transition_kind::none; ++moves) {
    if (moves > transition_limit)
      report_misuse(fmt::format("monitor {} made {} transitions in a row (entry actions that keep moving)", name_,
                                transition_limit));
    core_.pending = detail::machine_core::transition_kind::none;
    detail::state_definition* from = core_.stack.back();
    detail::state_definition* target = core_.find_state(core_.pending_target);
    if (from->exit) from->exit();
    core_.stack.back() = target;
    detail::runtime().note(fmt::format("monitor {} goes {} -> {} {}{}", name_, from->name, target->name, cause,
                                       target->heat == detail::temperature::hot ? " (hot)" : ""));
    if (target->entry) target->entry();
  }
  detail::runtime().monitor_settled(*this, loc);
}

void liveness_at_max_steps(max_steps_liveness policy) { detail::runtime().max_steps_policy = policy; }

}  // namespace heddle
