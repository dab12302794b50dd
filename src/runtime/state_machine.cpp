// State machines with Coyote's semantics (heddle/state_machine.hpp states the
// rules; tests/actors/state_machine_test.cpp checks each).
//
// A machine's states are declared once, in its constructor; the push stack
// holds pointers to them. A handler only requests a transition (pending in
// machine_core); settle() carries it out when the handler returns, and goes
// on while entry actions request more, then handles a raised event. Every
// transition is noted on the running step, for reports and the timeline.
#include <fmt/format.h>

#include "runtime/actor_runtime.hpp"

namespace heddle {

namespace detail {

state_definition& machine_core::declare(std::string_view name) {
  if (state_definition* s = find_state(name)) return *s;
  states.push_back(std::make_unique<state_definition>());
  states.back()->name = std::string(name);
  return *states.back();
}

state_definition* machine_core::find_state(std::string_view name) {
  for (auto& s : states)
    if (s->name == name) return s.get();
  return nullptr;
}

const std::string& machine_core::current() const {
  static const std::string none;
  return stack.empty() ? none : stack.back()->name;
}

[[noreturn]] void report_unhandled(const std::string& machine, const std::string& where, const std::string& event,
                                   std::source_location loc) {
  report_bug(bug_kind::unhandled_event,
             where.empty() ? fmt::format("{} received event {}, which it does not handle", machine, event)
                           : fmt::format("{} {} received event {}, which that state neither handles, defers nor ignores",
                                         machine, where, event),
             loc);
}

}  // namespace detail

namespace {
constexpr int transition_limit = 1000;  // transitions in a row without an event: a loop of entry actions
}

std::string_view state_machine::current_state() const { return core_.current(); }

void state_machine::request(detail::machine_core::transition_kind kind, std::string_view target,
                            std::source_location loc) {
  using tk = detail::machine_core::transition_kind;
  if (core_.pending != tk::none)
    report_misuse(fmt::format("{} requested two transitions in one handler (only one takes effect when it returns)",
                              name()),
                  loc);
  if (kind != tk::pop && core_.find_state(target) == nullptr)
    report_misuse(fmt::format("{} has no state named '{}'", name(), target), loc);
  core_.pending = kind;
  core_.pending_target = std::string(target);
}

void state_machine::go_to(std::string_view target, std::source_location loc) {
  request(detail::machine_core::transition_kind::go_to, target, loc);
}
void state_machine::push(std::string_view target, std::source_location loc) {
  request(detail::machine_core::transition_kind::push, target, loc);
}
void state_machine::pop(std::source_location loc) { request(detail::machine_core::transition_kind::pop, {}, loc); }

const detail::state_definition::rule* state_machine::lookup(std::type_index type) const {
  for (auto it = core_.stack.rbegin(); it != core_.stack.rend(); ++it)
    if (const auto* r = (*it)->find(type)) return r;
  return nullptr;
}

void state_machine::begin() {
  detail::state_definition* s = core_.find_state(core_.start);
  if (s == nullptr)
    report_misuse(core_.start.empty()
                      ? fmt::format("{} has no start state: call start_in(\"...\") in its constructor", name())
                      : fmt::format("{} starts in state '{}', which it does not declare", name(), core_.start));
  core_.stack = {s};
  detail::runtime().note(fmt::format("{} starts in {}", name(), s->name));
  if (s->entry) s->entry();
  settle("on entry");
}

bool state_machine::defers(std::type_index type) const {
  const auto* r = lookup(type);
  return r != nullptr && r->kind == detail::event_rule::defer;
}

bool state_machine::has_default_handler() const {
  for (auto it = core_.stack.rbegin(); it != core_.stack.rend(); ++it)
    if ((*it)->default_handler) return true;
  return false;
}

void state_machine::run_default_handler() {
  for (auto it = core_.stack.rbegin(); it != core_.stack.rend(); ++it)
    if ((*it)->default_handler) {
      (*it)->default_handler();
      break;
    }
  settle("on the default event");
}

void state_machine::restart() {
  on_restart();
  settle("on restart");
}

bool state_machine::dispatch(detail::event_base& e) {
  const detail::state_definition::rule* r = lookup(e.type());
  if (r == nullptr) return false;
  const std::string cause = "on " + e.name();
  switch (r->kind) {
    case detail::event_rule::ignore:
    case detail::event_rule::defer:  // not dequeued while deferred; a raised one is requeued by settle()
      return true;
    case detail::event_rule::handle:
      r->action(e);
      break;
    case detail::event_rule::go_to: {
      detail::state_definition* target = core_.find_state(r->target);
      if (target == nullptr) report_misuse(fmt::format("{} has no state named '{}'", name(), r->target));
      detail::state_definition* from = core_.stack.back();
      if (from->exit) from->exit();
      if (r->action) r->action(e);
      core_.stack.back() = target;
      detail::runtime().note(fmt::format("{} goes {} -> {} {}", name(), from->name, target->name, cause));
      if (target->entry) target->entry();
      break;
    }
    case detail::event_rule::push: {
      detail::state_definition* target = core_.find_state(r->target);
      if (target == nullptr) report_misuse(fmt::format("{} has no state named '{}'", name(), r->target));
      core_.stack.push_back(target);
      detail::runtime().note(fmt::format("{} pushes {} on {} {}", name(), target->name,
                                         core_.stack[core_.stack.size() - 2]->name, cause));
      if (target->entry) target->entry();
      break;
    }
  }
  settle(cause);
  return true;
}

void state_machine::settle(const std::string& cause) {
  using tk = detail::machine_core::transition_kind;
  for (int moves = 0;; ++moves) {
    if (moves > transition_limit)
      report_misuse(fmt::format("{} made {} transitions in a row without handling an event (entry actions that keep "
                                "moving)",
                                name(), transition_limit));
    const tk kind = std::exchange(core_.pending, tk::none);
    if (kind == tk::go_to) {
      detail::state_definition* from = core_.stack.back();
      detail::state_definition* target = core_.find_state(core_.pending_target);
      if (from->exit) from->exit();
      core_.stack.back() = target;
      detail::runtime().note(fmt::format("{} goes {} -> {} {}", name(), from->name, target->name, cause));
      if (target->entry) target->entry();
      continue;
    }
    if (kind == tk::push) {
      detail::state_definition* target = core_.find_state(core_.pending_target);
      core_.stack.push_back(target);
      detail::runtime().note(
          fmt::format("{} pushes {} on {} {}", name(), target->name, core_.stack[core_.stack.size() - 2]->name, cause));
      if (target->entry) target->entry();
      continue;
    }
    if (kind == tk::pop) {
      if (core_.stack.size() <= 1) report_misuse(fmt::format("{} pops its last state, {}", name(), core_.current()));
      detail::state_definition* top = core_.stack.back();
      if (top->exit) top->exit();
      core_.stack.pop_back();
      detail::runtime().note(fmt::format("{} pops {}, back in {}", name(), top->name, core_.current()));
      continue;
    }
    break;
  }
  if (!core_.raised) return;
  std::unique_ptr<detail::event_base> e = std::move(core_.raised);
  if (defers(e->type())) {
    detail::runtime().requeue_front(*detail::actor_record::of(*this), std::move(e));
    return;
  }
  if (dispatch(*e)) return;
  if (e->type() == typeid(halt_event)) {
    halt_requested_ = true;
    return;
  }
  detail::report_unhandled(name(), where_text(), e->name(), std::source_location{});
}

std::string state_machine::where_text() const { return fmt::format("in state '{}'", core_.current()); }

std::uint64_t state_machine::machine_hash() const {
  std::uint64_t h = 0;
  for (const detail::state_definition* s : core_.stack) h = detail::mix(h ^ std::hash<std::string>{}(s->name));
  return h;
}

}  // namespace heddle
