// Actors: objects with an inbox that exchange typed events (docs/actors.md).
//
//   struct ping { heddle::actor_id from; };
//   struct pong {};
//   struct server : heddle::actor {
//     server() { on<ping>([this](const ping& p) { send(p.from, pong{}); }); }
//   };
//   struct client : heddle::actor {
//     explicit client(heddle::actor_id s) : server_(s) { on<pong>([this] { halt(); }); }
//     void on_start() override { send(server_, ping{id()}); }
//     heddle::actor_id server_;
//   };
//   heddle::explore({}, [] { heddle::create<client>(heddle::create<server>()); });
//
// Contract, as in Coyote's actor runtime: an event is any copyable (or at
// least movable) C++ type, dispatched by its type. `send` enqueues it in the
// receiver's inbox and never blocks; an actor runs one handler per event it
// dequeues, to completion, one at a time. Each actor is one operation under
// control: every send and every dequeue is a scheduling point the strategy
// sees (point kinds send and receive on the receiver's inbox, object kind
// inbox), and nothing else in a handler is, unless the handler touches other
// models. Events from one sender to one receiver arrive in the order sent
// (FIFO per pair), unless a test injects faults (heddle/actor_faults.hpp).
// An actor whose inbox is empty is idle, not blocked: when every operation
// left is an idle actor, the iteration ends normally (quiescence), and only
// an actor waiting inside receive<E>() can be part of a deadlock.
//
// Actors exist only inside a controlled iteration: create and send outside
// one are API misuse. Everything an iteration created is destroyed at its
// end, after its operations have been unwound.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "heddle/model.hpp"

namespace heddle {

class actor;

// An actor's identity: its number in creation order within the iteration
// (from 1; 0 is "no actor"), so ids are the same in every run of a schedule.
// Prints as "name(number)", e.g. "server(2)", where the name is the one given
// to create_named or else the actor's class name.
class actor_id {
 public:
  constexpr actor_id() noexcept = default;
  constexpr explicit actor_id(std::uint32_t value) noexcept : value_(value) {}
  constexpr std::uint32_t value() const noexcept { return value_; }
  constexpr explicit operator bool() const noexcept { return value_ != 0; }
  // "server(2)"; "actor(2)" once its iteration is over; "none" for 0.
  std::string name() const;
  friend constexpr bool operator==(actor_id, actor_id) noexcept = default;
  friend constexpr auto operator<=>(actor_id, actor_id) noexcept = default;
  friend std::ostream& operator<<(std::ostream& out, actor_id id);

 private:
  std::uint32_t value_ = 0;
};
std::string to_string(actor_id id);

// A timer of an actor (actor::start_timer).
class timer_id {
 public:
  constexpr timer_id() noexcept = default;
  constexpr explicit timer_id(std::uint32_t value) noexcept : value_(value) {}
  constexpr std::uint32_t value() const noexcept { return value_; }
  constexpr explicit operator bool() const noexcept { return value_ != 0; }
  friend constexpr bool operator==(timer_id, timer_id) noexcept = default;

 private:
  std::uint32_t value_ = 0;
};

// The event a timer delivers unless its owner names another.
struct timer_elapsed {
  timer_id timer;
};

// Sent to an actor, halts it (Coyote's HaltEvent) unless its current handlers
// handle halt_event themselves.
struct halt_event {};

namespace detail {

// "ping", "raft::vote_request": a type's name as reports print it (demangled,
// without "(anonymous namespace)::").
std::string type_name(const std::type_info& type);
template <class T>
const std::string& type_name_of() {
  static const std::string name = type_name(typeid(T));
  return name;
}

// An event in an inbox, its type erased.
class event_base {
 public:
  explicit event_base(const std::type_info& type, const std::string& name) noexcept : type_(type), name_(&name) {}
  virtual ~event_base() = default;
  event_base(const event_base&) = delete;
  event_base& operator=(const event_base&) = delete;
  std::type_index type() const noexcept { return type_; }
  const std::string& name() const noexcept { return *name_; }
  // A copy (a duplicated message); null when the event type cannot be copied.
  virtual std::unique_ptr<event_base> clone() const = 0;
  // The stored value, to be cast to the event type `type()` names.
  virtual void* value() noexcept = 0;

 private:
  std::type_index type_;
  const std::string* name_;
};

template <class E>
class event_of final : public event_base {
 public:
  template <class... Args>
  explicit event_of(Args&&... args) : event_base(typeid(E), type_name_of<E>()), value_(std::forward<Args>(args)...) {}
  std::unique_ptr<event_base> clone() const override {
    if constexpr (std::is_copy_constructible_v<E>) return std::make_unique<event_of<E>>(value_);
    else return nullptr;
  }
  void* value() noexcept override { return &value_; }

 private:
  E value_;
};

template <class E>
std::unique_ptr<event_base> box(E&& event) {
  return std::make_unique<event_of<std::decay_t<E>>>(std::forward<E>(event));
}

// A handler as the runtime stores it: called with the event (a handler that
// takes no argument ignores it).
using handler = std::function<void(event_base&)>;

// The class of a member function pointer, whatever its qualifiers.
template <class F>
struct member_class;
template <class R, class C, class... A>
struct member_class<R (C::*)(A...)> {
  using type = C;
};
template <class R, class C, class... A>
struct member_class<R (C::*)(A...) const> {
  using type = C;
};
template <class R, class C, class... A>
struct member_class<R (C::*)(A...) noexcept> {
  using type = C;
};
template <class R, class C, class... A>
struct member_class<R (C::*)(A...) const noexcept> {
  using type = C;
};

// A member function pointer of the object `owner` (the actor or machine that
// declared it, as its base class) bound to it, as a callable; any other
// callable as it is.
template <class Owner, class F>
auto bind_member(Owner* owner, F f) {
  if constexpr (std::is_member_function_pointer_v<F>) {
    using self = typename member_class<F>::type;
    static_assert(std::is_base_of_v<Owner, self>, "a member handler must be a member of the class that declares it");
    return [object = static_cast<self*>(owner), f]<class... A>(A&&... args)
      requires std::is_invocable_v<F, self*, A...>
    { return (object->*f)(std::forward<A>(args)...); };
  } else {
    return f;
  }
}

// Adapts a user's callable F, taking `const E&`, `E&` or nothing, to a handler.
template <class E, class F>
handler adapt_handler(F f) {
  if constexpr (std::is_invocable_v<F&, E&>)
    return [f = std::move(f)](event_base& e) mutable { f(*static_cast<E*>(e.value())); };
  else {
    static_assert(std::is_invocable_v<F&>, "a handler of event E takes (const E&) or nothing");
    return [f = std::move(f)](event_base&) mutable { f(); };
  }
}

// Makes an actor of the running iteration (actor_runtime.cpp): `factory`
// builds its object, again at each restart after a crash that loses state.
actor_id create_actor(std::function<std::unique_ptr<actor>()> factory, std::string name);
void send_event(actor_id to, std::unique_ptr<event_base> event, std::source_location loc);
// The running actor, or null when the running operation is not an actor's.
actor* running_actor() noexcept;
// Blocks the running actor until its inbox holds an event `accept` takes,
// and returns that event, dequeued; other events stay queued in order.
std::unique_ptr<event_base> receive_event(const std::function<bool(event_base&)>& accept, std::string_view what,
                                          std::source_location loc);
timer_id start_timer(actor& owner, std::chrono::nanoseconds due, std::chrono::nanoseconds period,
                     std::unique_ptr<event_base> event, bool fills_timer_id);
void stop_timer(actor& owner, timer_id timer);

struct actor_record;  // the runtime's side of an actor (actor_runtime.hpp)
}  // namespace detail

// An actor. Derive from it, register handlers with on<E>() in the constructor
// (or in on_start), and create it with heddle::create<A>(args...).
class actor {
 public:
  actor() = default;
  virtual ~actor() = default;
  actor(const actor&) = delete;
  actor& operator=(const actor&) = delete;

  // Valid once created (not yet in the constructor: use on_start for sends).
  actor_id id() const noexcept { return id_; }
  // "server(2)".
  std::string name() const { return id_.name(); }

  // Mixed into the iteration's state fingerprint (heddle::state_hash, for
  // `ql` and the statistics' distinct end states) after each of this actor's
  // handlers: override it to say what distinguishes two states of the actor.
  // The runtime adds the actor's state-machine state and inbox by itself.
  virtual std::uint64_t state_hash() const { return 0; }

 protected:
  // The handler of events of type E: `f` (a lambda or a member function of
  // the actor, `&server::on_ping`) takes `const E&` (or `E&`), or nothing. A
  // later registration for the same type replaces the earlier.
  template <class E, class F>
  void on(F f) {
    set_handler(typeid(E), detail::adapt_handler<E>(detail::bind_member(this, std::move(f))));
  }
  // Events of type E are dequeued and dropped.
  template <class E>
  void ignore() {
    set_handler(typeid(E), [](detail::event_base&) {});
  }

  // The actor's first handler, run when it is first scheduled (Coyote's
  // OnInitializeAsync). A state machine enters its start state instead.
  virtual void on_start() {}
  // Runs when the actor halts (halt(), halt_event), before its inbox is dropped.
  virtual void on_halt() {}
  // Runs when the actor restarts after a crash that kept its state
  // (crash_options::keep_state); a restart that loses state builds a new
  // object, which starts with on_start. In a state machine, a transition
  // requested here (go_to, push, pop, raise) takes effect when it returns, as
  // from a handler.
  virtual void on_restart() {}

  // --- inside a handler -----------------------------------------------------
  template <class E>
  void send(actor_id to, E&& event, std::source_location loc = std::source_location::current()) {
    detail::send_event(to, detail::box(std::forward<E>(event)), loc);
  }
  // Blocks until an event of type E is in the inbox (one that `accept` takes,
  // when given), dequeues the first such and returns it; the other events
  // stay queued in their order (Coyote's ReceiveEventAsync). A receive point.
  template <class E>
  E receive(std::source_location loc = std::source_location::current()) {
    auto e = detail::receive_event([](detail::event_base& b) { return b.type() == typeid(E); },
                                   detail::type_name_of<E>(), loc);
    return std::move(*static_cast<E*>(e->value()));
  }
  template <class E, class P>
  E receive(P accept, std::source_location loc = std::source_location::current()) {
    auto e = detail::receive_event(
        [&accept](detail::event_base& b) {
          return b.type() == typeid(E) && static_cast<bool>(accept(std::as_const(*static_cast<E*>(b.value()))));
        },
        detail::type_name_of<E>(), loc);
    return std::move(*static_cast<E*>(e->value()));
  }
  // The first event of any of the types Es.
  template <class... Es>
  std::variant<Es...> receive_any(std::source_location loc = std::source_location::current()) {
    static const std::string what = [] {
      std::string s;
      ((s += (s.empty() ? "" : " or ") + detail::type_name_of<Es>()), ...);
      return s;
    }();
    auto e = detail::receive_event([](detail::event_base& b) { return ((b.type() == typeid(Es)) || ...); }, what, loc);
    std::variant<Es...> out;
    (void)((e->type() == typeid(Es) ? (out.template emplace<Es>(std::move(*static_cast<Es*>(e->value()))), true)
                                    : false) ||
           ...);
    return out;
  }
  // The actor halts when the running handler returns: its on_halt runs, its
  // timers stop, its inbox is dropped, and events sent to it later are dropped.
  void halt() noexcept { halt_requested_ = true; }

  // A timer on virtual time that delivers `event` (by default a
  // timer_elapsed naming it) to this actor once, `due` after now. When it
  // fires is the strategy's choice (Coyote's mock timers), so a test sees it
  // fire early, late, before or after any message.
  template <class E = timer_elapsed>
  timer_id start_timer(std::chrono::nanoseconds due, E event = {}) {
    return detail::start_timer(*this, due, std::chrono::nanoseconds{0}, detail::box(std::move(event)),
                               std::is_same_v<E, timer_elapsed>);
  }
  // The same, then every `period`. A periodic timer has at most one event of
  // its own in the inbox: it fires again only after that one was dequeued.
  template <class E = timer_elapsed>
  timer_id start_periodic_timer(std::chrono::nanoseconds due, std::chrono::nanoseconds period, E event = {}) {
    return detail::start_timer(*this, due, period, detail::box(std::move(event)), std::is_same_v<E, timer_elapsed>);
  }
  // Stops it: it fires no more (an event it already delivered stays queued).
  void stop_timer(timer_id timer) { detail::stop_timer(*this, timer); }

  // Data choices, decided by the strategy and recorded (heddle::choose_bool).
  bool random_bool(std::source_location loc = std::source_location::current()) { return choose_bool(loc); }
  std::uint64_t random_int(std::uint64_t n, std::source_location loc = std::source_location::current()) {
    return choose_int(n, loc);
  }

 private:
  friend struct detail::actor_record;
  friend class state_machine;
  friend actor_id detail::create_actor(std::function<std::unique_ptr<actor>()>, std::string);

  void set_handler(std::type_index type, detail::handler h);
  // What the runtime asks an actor (a state machine answers differently).
  virtual void begin();                              // first handler: on_start
  virtual bool defers(std::type_index type) const;   // leave it queued for now
  virtual bool has_default_handler() const;          // runs when nothing can be dequeued
  virtual void run_default_handler();
  // After a crash that kept the state: on_restart (a state machine then
  // carries out the transitions on_restart requested).
  virtual void restart();
  // Runs the handler of `e`; false when nothing handles it (an unhandled event).
  virtual bool dispatch(detail::event_base& e);
  // "in state 'init'" for a state machine; empty for a plain actor.
  virtual std::string where_text() const { return {}; }
  // The state machine's state, folded into the fingerprint.
  virtual std::uint64_t machine_hash() const { return 0; }

  actor_id id_;
  bool halt_requested_ = false;
  detail::actor_record* record_ = nullptr;
  std::vector<std::pair<std::type_index, detail::handler>> handlers_;
};

// Creates an actor of type A from `args` (copied, so that a crash that loses
// state can build it again) and returns its id; the actor starts (on_start)
// when the strategy first schedules it. Usable in the test body, in handlers
// and in threads.
template <class A, class... Args>
actor_id create(Args&&... args) {
  static_assert(std::is_base_of_v<actor, A>, "create<A>: A must derive from heddle::actor");
  return detail::create_actor(
      [... a = std::decay_t<Args>(std::forward<Args>(args))]() -> std::unique_ptr<actor> { return std::make_unique<A>(a...); },
      detail::type_name_of<A>());
}
// The same with the name it prints with ("leader" prints as "leader(3)").
template <class A, class... Args>
actor_id create_named(std::string name, Args&&... args) {
  static_assert(std::is_base_of_v<actor, A>, "create_named<A>: A must derive from heddle::actor");
  return detail::create_actor(
      [... a = std::decay_t<Args>(std::forward<Args>(args))]() -> std::unique_ptr<actor> { return std::make_unique<A>(a...); },
      std::move(name));
}

// Enqueues `event` in the inbox of `to` (a send point on it); never blocks.
// An event sent to a halted actor, or to one that is down after a crash, is
// dropped. Usable in the test body, in handlers and in threads.
template <class E>
void send(actor_id to, E&& event, std::source_location loc = std::source_location::current()) {
  detail::send_event(to, detail::box(std::forward<E>(event)), loc);
}

// Per-actor counts of the running iteration, for tests and benchmarks.
struct actor_counts {
  std::uint64_t sent = 0;        // events this actor sent (the test body's count as actor 0)
  std::uint64_t handled = 0;     // handlers it ran (on_start and default handlers included)
  std::uint64_t dropped = 0;     // events addressed to it that were dropped (halted, down, faults)
  std::uint64_t duplicated = 0;  // events to it delivered twice (faults)
  std::uint64_t delayed = 0;     // events to it delayed (faults)
  std::uint64_t crashes = 0;
};
actor_counts counts(actor_id id);
// Whether `id` has halted (or is down after a crash without restart).
bool halted(actor_id id);

}  // namespace heddle
