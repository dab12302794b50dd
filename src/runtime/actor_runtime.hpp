// The actor runtime's state for one iteration: actors with their inboxes,
// timers, monitors and the faults a test switched on (DESIGN.md section 10,
// docs/actors.md).
//
// Contract: one runtime per controlled iteration, made on first use in it
// (runtime()), registered as the engine's iteration watch so that it judges
// liveness monitors however the iteration ends, says which blocked
// operations are idle actors (quiescence, not deadlock), and destroys what
// the iteration made once its operations are unwound. Everything here runs
// with exactly one operation running: no locks. Ids (actors, timers) count
// from 1 in creation order, so they are the same in every run of a schedule.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "engine/iteration_watch.hpp"
#include "heddle/actor.hpp"
#include "heddle/actor_faults.hpp"
#include "heddle/monitor.hpp"

namespace heddle::detail {

struct envelope {
  std::unique_ptr<event_base> event;
  actor_id from;
  std::source_location sent_at;
  std::uint32_t timer = 0;  // a timer's own event: the timer fires again once it is dequeued
};

struct timer_record;

struct actor_record {
  actor_id id;
  std::string name;  // "server(2)"
  std::function<std::unique_ptr<actor>()> factory;
  std::unique_ptr<actor> object;
  std::deque<envelope> inbox;
  resource inbox_resource{object_kind::inbox};
  operation_id op = 0;
  bool idle = false;       // blocked between handlers, waiting for an event: not part of a deadlock
  bool receiving = false;  // blocked in receive<E>(): may be part of a deadlock
  bool halted = false;     // halted, or down for good after a crash-stop
  bool down = false;       // crashed: events sent to it are dropped
  std::uint64_t inbox_hash = 0;    // sum of the queued events' type hashes
  std::uint64_t contribution = 0;  // its term in the iteration's state hash
  actor_counts counts;
  std::optional<faults::crash_options> crash;  // allowed to crash, how
  std::vector<timer_record*> timers;

  // The actor's private side, for the runtime (heddle::actor befriends this struct).
  static void begin(actor& a) { a.begin(); }
  static bool defers(const actor& a, std::type_index t) { return a.defers(t); }
  static bool has_default(const actor& a) { return a.has_default_handler(); }
  static void run_default(actor& a) { a.run_default_handler(); }
  static bool dispatch(actor& a, event_base& e) { return a.dispatch(e); }
  static std::string where_text(const actor& a) { return a.where_text(); }
  static std::uint64_t machine_hash(const actor& a) { return a.machine_hash(); }
  static bool& halt_requested(actor& a) { return a.halt_requested_; }
  static void on_halt(actor& a) { a.on_halt(); }
  static void restart(actor& a) { a.restart(); }
  static void attach(actor& a, actor_id id, actor_record* r) {
    a.id_ = id;
    a.record_ = r;
  }
  static actor_record* of(const actor& a) { return a.record_; }
};

struct timer_record {
  timer_id id;
  actor_record* owner = nullptr;
  std::unique_ptr<event_base> event;  // what each firing delivers (a copy of it)
  bool fills_id = false;              // a timer_elapsed: set its timer field
  std::chrono::nanoseconds due{0};
  std::chrono::nanoseconds period{0};  // 0: one-shot
  bool stopped = false;
  bool pending = false;  // its event is in the owner's inbox
  bool waiting = false;  // blocked until that event is dequeued: idle
  resource signal{object_kind::timer};
  operation_id op = 0;
};

struct monitor_record {
  std::type_index type;
  std::unique_ptr<monitor> object;
  std::uint64_t hot_since = 0;  // step it became hot, while hot
  std::source_location hot_where;
  std::uint64_t contribution = 0;
};

struct partition_record {
  std::vector<actor_id> a, b;
  faults::partition_options options;
  enum class phase : std::uint8_t { not_started, active, healed } now = phase::not_started;
  bool separates(actor_id x, actor_id y) const;
};

class actor_runtime final : public iteration_watch {
 public:
  explicit actor_runtime(engine& e);
  ~actor_runtime() override;

  // --- actors (actor_runtime.cpp) ---
  actor_id create(std::function<std::unique_ptr<actor>()> factory, std::string name);
  void send(actor_id to, std::unique_ptr<event_base> event, std::source_location loc);
  // Puts `e` in `r`'s inbox and wakes it (no point: the caller took it).
  void deliver(actor_record& r, envelope e);
  actor_record* running_actor() noexcept;
  actor_record* find(actor_id id) noexcept;
  std::unique_ptr<event_base> receive(const std::function<bool(event_base&)>& accept, std::string_view what,
                                      std::source_location loc);
  void requeue_front(actor_record& r, std::unique_ptr<event_base> e);
  void note(std::string text) { engine_.note_step(std::move(text)); }
  void refresh_hash(actor_record& r);
  void publish_hash();

  // --- timers (actor_timers.cpp) ---
  timer_id start_timer(actor_record& owner, std::chrono::nanoseconds due, std::chrono::nanoseconds period,
                       std::unique_ptr<event_base> event, bool fills_id);
  void stop_timer(timer_record& t);
  void stop_timers(actor_record& r);
  timer_record* find_timer(timer_id id) noexcept;
  // The owner dequeued the timer's event: a periodic timer may fire again.
  void timer_event_taken(std::uint32_t timer);

  // --- faults (actor_faults.cpp) ---
  // Decides the faults of one send after its point; false when the event
  // must not be delivered now (dropped, or handed to a delaying operation).
  bool deliver_with_faults(actor_record& to, envelope& e);
  // At a dequeue of an actor allowed to crash: whether it crashes now.
  bool crash_now(actor_record& r);
  bool faults_on() const noexcept { return faults_on_; }
  faults::link_options default_link;
  std::vector<std::pair<std::pair<actor_id, actor_id>, faults::link_options>> links;
  std::vector<partition_record> partitions;
  std::uint32_t budget = 3;
  std::vector<std::function<void(actor_id)>> crash_observers;
  bool faults_on_ = false;  // some fault was switched on in this iteration

  // --- monitors (monitor_runtime.cpp) ---
  monitor* find_monitor(std::type_index type) noexcept;
  monitor& adopt_monitor(std::type_index type, std::unique_ptr<monitor> m, const std::string& name);
  void notify(monitor& m, std::unique_ptr<event_base> event, std::source_location loc);
  // The monitor's state changed: its heat, its term in the state hash.
  void monitor_settled(monitor& m, std::source_location loc);
  max_steps_liveness max_steps_policy = max_steps_liveness::fair_only;

  // --- iteration_watch ---
  bool idle(operation_id op) const override;
  void at_end(iteration_end how) override;
  void at_step(std::uint64_t step) override;
  void after_iteration() override;

  engine& engine_;
  std::uint32_t epoch;
  std::vector<std::unique_ptr<actor_record>> actors;  // index = id - 1
  std::vector<actor_record*> by_operation;            // index = operation id
  std::vector<std::unique_ptr<timer_record>> timers;  // index = id - 1
  std::vector<operation_id> timer_ops;                // operations of timers, for idle()
  std::vector<monitor_record> monitors;
  actor_counts outside;  // sends from outside any actor (the test body, threads)
  std::uint64_t hash_total = 0;

 private:
  monitor_record* record_of(const monitor& m) noexcept;
  std::uint64_t threshold_of(const monitor_record& m) const noexcept;
  void watch_temperatures();
  void report_hot(const monitor_record& m, const std::string& why);
};

// The runtime of the running iteration, made and registered on first use;
// misuse outside control.
actor_runtime& runtime(std::source_location loc = std::source_location::current());
// The running iteration's runtime if one was made, else null.
actor_runtime* runtime_if_any() noexcept;

// The unhandled_event bug: "door(2) in state 'closed' received event ping,
// which that state neither handles, defers nor ignores" (`where` empty for
// a plain actor: "... which it does not handle").
[[noreturn]] void report_unhandled(const std::string& machine, const std::string& where, const std::string& event,
                                   std::source_location loc);

// The actor loop of `r` (actor_runtime.cpp): its operation's body.
void run_actor(actor_record& r);

// Whether the state hash's terms use a type's hash (stable across processes:
// libstdc++ hashes the type's name).
inline std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Access to a monitor's private state for the runtime.
struct monitor_access {
  static machine_core& core(monitor& m) { return m.core_; }
  static std::string& name(monitor& m) { return m.name_; }
  static std::uint64_t threshold(const monitor& m) { return m.threshold_; }
  static void observe(monitor& m, event_base& e, std::source_location loc) { m.observe(e, loc); }
  static bool& started(monitor& m) { return m.started_; }
  static void settle(monitor& m, const std::string& cause, std::source_location loc) { m.settle(cause, loc); }
};

}  // namespace heddle::detail
