// State machines: actors whose handlers depend on a current state, with
// Coyote's semantics (docs/actors.md, "State machines").
//
//   struct door : heddle::state_machine {
//     door() {
//       state("closed").on_goto<open_request>("open").ignore<close_request>();
//       state("open").on_entry([this] { start_timer(1s); })
//                    .on_goto<timer_elapsed>("closed").defer<lock_request>();
//       start_in("closed");
//     }
//   };
//
// The rules, each tested in tests/actors:
// - The start state's entry action runs as the machine's first handler.
// - An event is looked up in the current state, then in the states below it
//   on the push stack (a pushed state inherits its parents' handlers, defers
//   and ignores; the topmost declaration wins).
// - handled (on, on_goto, on_push): its action runs; ignored: dropped;
//   deferred: it stays queued and the machine dequeues the first event that
//   is not deferred (deferred events keep their order and are handled once a
//   state stops deferring them). Anything else is an unhandled_event bug
//   naming the machine, its state and the event. halt_event, unless handled,
//   halts the machine.
// - When no event can be dequeued (the inbox is empty, or holds only
//   deferred events) and the state has a default handler (on_default), that
//   handler runs instead of the machine going idle (Coyote's DefaultEvent).
// - go_to(S), push(S), pop() and raise(E) requested in a handler take effect
//   when it returns: go_to runs the exit action of the current state, then
//   the entry action of S, replacing the top of the stack; push runs S's
//   entry on top of the current state, without exiting it; pop runs the top
//   state's exit and resumes the state below without re-entering it; a
//   raised event is handled next, before anything in the inbox. One
//   transition per handler; a second one, a pop of the last state or a
//   transition to an undeclared state is API misuse.
// - Entry and exit actions may themselves request a transition or raise.
// Every transition is noted on the step it happened in, so reports and the
// HTML timeline say "door(2): closed -> open on open_request".
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <vector>

#include "heddle/actor.hpp"

namespace heddle {

class state_machine;
class monitor;

namespace detail {

// How a state treats an event type.
enum class event_rule : std::uint8_t { handle, go_to, push, defer, ignore };
// A state's liveness temperature (monitors only).
enum class temperature : std::uint8_t { none, hot, cold };

struct state_definition {
  struct rule {
    std::type_index type;
    event_rule kind;
    handler action;  // may be empty for go_to, push, defer and ignore
    std::string target;  // go_to and push
  };
  std::string name;
  std::function<void()> entry;
  std::function<void()> exit;
  std::function<void()> default_handler;
  temperature heat = temperature::none;
  std::vector<rule> rules;
  const rule* find(std::type_index type) const noexcept {
    for (const rule& r : rules)
      if (r.type == type) return &r;
    return nullptr;
  }
};

// The states, the push stack and the pending transition of a state machine
// or a monitor (state_machine.cpp): the part the two share.
class machine_core {
 public:
  enum class transition_kind : std::uint8_t { none, go_to, push, pop };
  state_definition& declare(std::string_view name);
  state_definition* find_state(std::string_view name);
  std::vector<std::unique_ptr<state_definition>> states;
  std::vector<state_definition*> stack;  // the current state is stack.back()
  std::string start;
  transition_kind pending = transition_kind::none;
  std::string pending_target;
  std::unique_ptr<event_base> raised;
  const std::string& current() const;
};

// Calls a member function pointer on the machine that declared it, or any
// other callable as it is.
template <class E, class Owner, class F>
handler bind_action(Owner* owner, F f) {
  return adapt_handler<E>(bind_member(owner, std::move(f)));
}
template <class F, class Owner>
std::function<void()> bind_plain(Owner* owner, F f) {
  return std::function<void()>(bind_member(owner, std::move(f)));
}

}  // namespace detail

// Declares one state of a state machine or monitor; returned by state(name).
// Callables are lambdas (usually capturing `this`) or member function pointers
// of the machine (`&door::on_open`); an event action takes `const E&` or nothing.
template <class Owner>
class state_builder {
 public:
  state_builder(Owner* owner, detail::state_definition& state) : owner_(owner), state_(&state) {}

  // Runs when the machine enters this state (go_to, push, start).
  template <class F>
  state_builder& on_entry(F f) {
    state_->entry = detail::bind_plain(owner_, std::move(f));
    return *this;
  }
  // Runs when the machine leaves this state (go_to away, pop).
  template <class F>
  state_builder& on_exit(F f) {
    state_->exit = detail::bind_plain(owner_, std::move(f));
    return *this;
  }
  // In this state, events of type E run `f`.
  template <class E, class F>
  state_builder& on(F f) {
    return rule<E>(detail::event_rule::handle, detail::bind_action<E>(owner_, std::move(f)), {});
  }
  // In this state, an event of type E moves the machine to `target`: exit
  // action, then `action` (if any) with the event, then the target's entry.
  template <class E>
  state_builder& on_goto(std::string_view target) {
    return rule<E>(detail::event_rule::go_to, {}, target);
  }
  template <class E, class F>
  state_builder& on_goto(std::string_view target, F action) {
    return rule<E>(detail::event_rule::go_to, detail::bind_action<E>(owner_, std::move(action)), target);
  }
  // In this state, an event of type E pushes `target` (state machines only).
  template <class E>
  state_builder& on_push(std::string_view target) {
    static_assert(!std::is_base_of_v<monitor, Owner>, "a monitor has no push stack");
    return rule<E>(detail::event_rule::push, {}, target);
  }
  // In this state, events of type E stay queued (state machines only).
  template <class E>
  state_builder& defer() {
    static_assert(!std::is_base_of_v<monitor, Owner>, "a monitor sees events as they happen: nothing to defer");
    return rule<E>(detail::event_rule::defer, {}, {});
  }
  // In this state, events of type E are dropped.
  template <class E>
  state_builder& ignore() {
    return rule<E>(detail::event_rule::ignore, {}, {});
  }
  // Runs when nothing can be dequeued in this state (state machines only).
  template <class F>
  state_builder& on_default(F f) {
    static_assert(!std::is_base_of_v<monitor, Owner>, "a monitor has no inbox");
    state_->default_handler = detail::bind_plain(owner_, std::move(f));
    return *this;
  }
  // Liveness (monitors only): a hot state is a promise not yet kept (a
  // request not yet answered); a cold state one kept. See heddle/monitor.hpp.
  state_builder& hot() {
    static_assert(std::is_base_of_v<monitor, Owner>, "only a monitor's states are hot or cold");
    state_->heat = detail::temperature::hot;
    return *this;
  }
  state_builder& cold() {
    static_assert(std::is_base_of_v<monitor, Owner>, "only a monitor's states are hot or cold");
    state_->heat = detail::temperature::cold;
    return *this;
  }

 private:
  template <class E>
  state_builder& rule(detail::event_rule kind, detail::handler action, std::string_view target) {
    for (auto& r : state_->rules)
      if (r.type == typeid(E)) {
        r = {typeid(E), kind, std::move(action), std::string(target)};
        return *this;
      }
    state_->rules.push_back({typeid(E), kind, std::move(action), std::string(target)});
    return *this;
  }
  Owner* owner_;
  detail::state_definition* state_;
};

// An actor whose behaviour is a state machine (the rules above).
class state_machine : public actor {
 public:
  // The current state's name ("" before the machine started).
  std::string_view current_state() const;

 protected:
  state_machine() = default;

  // Declares (or reopens) state `name`.
  state_builder<state_machine> state(std::string_view name) { return {this, core_.declare(name)}; }
  // The state the machine starts in; required before it is first scheduled.
  void start_in(std::string_view name) { core_.start = std::string(name); }

  // Transitions, taking effect when the running handler returns.
  void go_to(std::string_view target, std::source_location loc = std::source_location::current());
  void push(std::string_view target, std::source_location loc = std::source_location::current());
  void pop(std::source_location loc = std::source_location::current());
  // `event` is handled next, before anything in the inbox (Coyote's RaiseEvent).
  template <class E>
  void raise(E&& event) {
    core_.raised = detail::box(std::forward<E>(event));
  }

 private:
  friend struct detail::actor_record;
  template <class>
  friend class state_builder;
  void begin() override;
  bool defers(std::type_index type) const override;
  bool has_default_handler() const override;
  void run_default_handler() override;
  void restart() override;
  bool dispatch(detail::event_base& e) override;
  std::string where_text() const override;
  std::uint64_t machine_hash() const override;
  // Applies the transitions and raised events the last action requested.
  void settle(const std::string& cause);
  const detail::state_definition::rule* lookup(std::type_index type) const;
  void request(detail::machine_core::transition_kind kind, std::string_view target, std::source_location loc);

  detail::machine_core core_;
};

}  // namespace heddle
