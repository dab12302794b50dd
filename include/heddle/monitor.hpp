// Monitors: state machines that observe what the program announces and judge
// it (docs/actors.md, "Monitors").
//
//   struct request {}; struct response {};
//   struct answered : heddle::monitor {             // liveness
//     answered() {
//       state("idle").cold().on_goto<request>("waiting").ignore<response>();
//       state("waiting").hot().on_goto<response>("idle").ignore<request>();
//       start_in("idle");
//     }
//   };
//   struct one_leader : heddle::monitor {           // safety
//     one_leader() { state("watching").on<elected>([this](const elected& e) {
//       check(leaders_[e.term].insert(e.node).second || leaders_[e.term].size() == 1,
//             "two leaders in one term"); }); start_in("watching"); }
//     std::map<int, std::set<int>> leaders_;
//   };
//   ... heddle::notify<answered>(request{}); ...    // from an actor, a thread, anywhere
//
// Contract:
// - A monitor of type M exists once per iteration: made by register_monitor<M>
//   (with constructor arguments) or, default-constructed, by the first
//   notify<M>. notify<M>(e) runs M's handler for e at once, in the caller,
//   and is not a scheduling point: observing never changes the schedules a
//   strategy sees. It works from actors, threads, tasks and the test body.
// - Monitors follow the state-machine rules of heddle/state_machine.hpp
//   (entry and exit actions, on, on_goto, ignore), without an inbox (no defer,
//   no push, no default handler). An event the current state does not handle
//   or ignore is an unhandled_event bug.
// - Safety: check(cond, message) in a handler; a false condition is an
//   assertion bug whose message names the monitor and its state.
// - Liveness: a state is hot(), cold(), or neither (which counts as cold).
//   A monitor is hot from entering a hot state to entering one that is not.
//   It is a `liveness` bug when a monitor is hot
//     1. at the end of an iteration where every operation finished or every
//        operation left is an idle actor (any strategy: no unfairness there);
//     2. when max_steps cuts the iteration, if the strategy was fair for the
//        last part of it (fair(S) past its budget), where Coyote reports
//        nothing (its issue #25); with an unfair strategy a monitor left hot
//        by starvation is not a bug unless liveness_at_max_steps(always);
//     3. as soon as its temperature passes its threshold: the temperature is
//        the number of steps it has been hot within the fair part of a
//        fair(S) strategy (steps under S itself never count, so unfairness
//        never heats a monitor). The default threshold is half the fair part,
//        (max_steps - fair_after) / 2: 5,000 steps with the defaults (20,000
//        and 10,000), when a fair scheduler runs every enabled operation of
//        a small system many hundred times. set_temperature_threshold changes
//        it for one monitor.
//   The message names the monitor, its hot state and which of the three
//   applied; the step where it became hot carries a note in the report.
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <utility>

#include "heddle/state_machine.hpp"

namespace heddle {

namespace detail {
struct monitor_access;
}  // namespace detail

class monitor {
 public:
  monitor() = default;
  virtual ~monitor() = default;
  monitor(const monitor&) = delete;
  monitor& operator=(const monitor&) = delete;

  // The monitor's name in reports: its class name.
  const std::string& name() const noexcept { return name_; }
  std::string_view current_state() const;
  bool is_hot() const noexcept;
  // Mixed into the iteration's state fingerprint with the current state.
  virtual std::uint64_t state_hash() const { return 0; }

 protected:
  state_builder<monitor> state(std::string_view name) { return {this, core_.declare(name)}; }
  void start_in(std::string_view name) { core_.start = std::string(name); }
  // In a handler: moves to `target` when the handler returns (exit, entry).
  void go_to(std::string_view target, std::source_location loc = std::source_location::current());
  // A safety check: false is an assertion bug, "monitor one_leader in state
  // 'watching': two leaders in one term".
  void check(bool condition, std::string_view message, std::source_location loc = std::source_location::current());
  // This monitor's temperature threshold, in steps (see above).
  void set_temperature_threshold(std::uint64_t steps) noexcept { threshold_ = steps; }

 private:
  friend struct detail::monitor_access;
  template <class>
  friend class state_builder;
  void observe(detail::event_base& e, std::source_location loc);
  void settle(const std::string& cause, std::source_location loc);

  detail::machine_core core_;
  std::string name_;
  std::uint64_t threshold_ = 0;  // 0: the default
  bool started_ = false;
};

namespace detail {
// The running iteration's monitor of `type`, or null (monitor_runtime.cpp).
monitor* find_monitor(std::type_index type);
// Adopts `m` as the iteration's monitor of `type`; misuse if one exists.
monitor& adopt_monitor(std::type_index type, std::unique_ptr<monitor> m, const std::string& name);
void notify_monitor(monitor& m, std::unique_ptr<event_base> event, std::source_location loc);
}  // namespace detail

// Makes the iteration's monitor of type M from `args` (before any notify<M>).
template <class M, class... Args>
M& register_monitor(Args&&... args) {
  static_assert(std::is_base_of_v<monitor, M>, "register_monitor<M>: M must derive from heddle::monitor");
  return static_cast<M&>(detail::adopt_monitor(typeid(M), std::make_unique<M>(std::forward<Args>(args)...),
                                               detail::type_name_of<M>()));
}

// Announces `event` to the iteration's monitor of type M (made on first use).
// Outside a controlled iteration it does nothing.
template <class M, class E>
void notify(E&& event, std::source_location loc = std::source_location::current()) {
  static_assert(std::is_base_of_v<monitor, M>, "notify<M>: M must derive from heddle::monitor");
  if (!in_control()) return;
  monitor* m = detail::find_monitor(typeid(M));
  if (m == nullptr) {
    if constexpr (std::is_default_constructible_v<M>)
      m = &detail::adopt_monitor(typeid(M), std::make_unique<M>(), detail::type_name_of<M>());
    else
      report_misuse("notify<" + detail::type_name_of<M>() + ">: the monitor takes constructor arguments; "
                    "call register_monitor<M>(args...) first", loc);
  }
  detail::notify_monitor(*m, detail::box(std::forward<E>(event)), loc);
}

// When a hot monitor at a max_steps cut is a liveness bug (rule 2 above):
// only after a fair part (the default); always, for a test that knows its
// strategy cannot starve the operations that would cool it; or never, for a
// monitor that goes hot and cold over and over in a system that runs until
// the cut (a heartbeat), where being hot at the cut proves nothing: then
// only its temperature (rule 3) judges it at the cut, as in Coyote.
enum class max_steps_liveness : std::uint8_t { fair_only, always, never };
// For the running iteration (call it in the test body).
void liveness_at_max_steps(max_steps_liveness policy);

}  // namespace heddle
