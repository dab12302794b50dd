// Actors under control: creation, the inbox, the loop that runs one handler
// per dequeued event, receive, halt and crashes (heddle/actor.hpp).
//
// Each actor is one operation. Its loop announces a receive point on its
// inbox before each dequeue, or, with nothing to dequeue, blocks on the inbox
// as idle (a receive point too: the wake-up that follows a send is the
// dequeue decision, so one decision per message, never two). A send is a
// send point on the receiver's inbox, taken before the event is enqueued so
// that a strategy can order two sends to one inbox either way. One FIFO
// inbox per actor keeps each sender's events in order. The loop's own points
// carry no source location (it would be this file's): a report's row says
// "receive inbox #3" and the handler's notes say what it did.
#include "runtime/actor_runtime.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "heddle/bug.hpp"

namespace heddle {

namespace detail {
namespace {
actor_runtime* the_runtime = nullptr;

std::uint64_t type_hash(const event_base& e) noexcept { return mix(e.type().hash_code()); }
}  // namespace

std::string type_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : type.name();
  std::free(demangled);
  constexpr std::string_view anonymous = "(anonymous namespace)::";
  for (std::size_t at; (at = name.find(anonymous)) != std::string::npos;) name.erase(at, anonymous.size());
  // A class local to a function ("suite_test::TestBody()::waiter"): its own name.
  if (const std::size_t local = name.rfind(")::"); local != std::string::npos && name.find('<') == std::string::npos)
    name.erase(0, local + 3);
  return name;
}

actor_runtime& runtime(std::source_location loc) {
  engine* e = engine::current();
  if (e == nullptr) report_misuse("actors and monitors run only under heddle's control (explore, HEDDLE_TEST)", loc);
  if (the_runtime != nullptr && &the_runtime->engine_ == e && the_runtime->epoch == control.epoch)
    return *the_runtime;
  delete the_runtime;  // an iteration that ended without its watch's last call (cannot happen today)
  the_runtime = new actor_runtime(*e);
  e->set_watch(the_runtime);
  return *the_runtime;
}

actor_runtime* runtime_if_any() noexcept {
  const engine* e = engine::current();
  return the_runtime != nullptr && e != nullptr && &the_runtime->engine_ == e && the_runtime->epoch == control.epoch
             ? the_runtime
             : nullptr;
}

actor_runtime::actor_runtime(engine& e) : engine_(e), epoch(control.epoch) {}

actor_runtime::~actor_runtime() = default;

void actor_runtime::after_iteration() {
  // The operations are unwound: nothing refers to the records any more. The
  // objects go first (an actor's destructor may stop timers, say).
  for (auto& r : actors) r->object.reset();
  monitors.clear();
  if (the_runtime == this) the_runtime = nullptr;
  delete this;
}

// --- creation and identity --------------------------------------------------

actor_id actor_runtime::create(std::function<std::unique_ptr<actor>()> factory, std::string name) {
  auto owned = std::make_unique<actor_record>();
  actor_record& r = *owned;
  r.id = actor_id(static_cast<std::uint32_t>(actors.size() + 1));
  r.name = fmt::format("{}({})", name, r.id.value());
  r.factory = std::move(factory);
  actors.push_back(std::move(owned));
  r.object = r.factory();
  actor_record::attach(*r.object, r.id, &r);
  r.op = heddle::spawn([&r] { run_actor(r); }, r.name);
  if (by_operation.size() <= r.op) by_operation.resize(r.op + 1, nullptr);
  by_operation[r.op] = &r;
  refresh_hash(r);
  publish_hash();
  return r.id;
}

actor_record* actor_runtime::find(actor_id id) noexcept {
  return id.value() >= 1 && id.value() <= actors.size() ? actors[id.value() - 1].get() : nullptr;
}

actor_record* actor_runtime::running_actor() noexcept {
  const operation_id op = current_operation();
  return op < by_operation.size() ? by_operation[op] : nullptr;
}

bool actor_runtime::idle(operation_id op) const {
  if (op < by_operation.size() && by_operation[op] != nullptr) return by_operation[op]->idle;
  for (const auto& t : timers)
    if (t->op == op) return t->waiting;
  return false;
}

// --- state fingerprint --------------------------------------------------------

void actor_runtime::refresh_hash(actor_record& r) {
  std::uint64_t h = mix(r.id.value());
  if (r.object != nullptr) {
    h = mix(h ^ r.object->state_hash());
    h = mix(h ^ actor_record::machine_hash(*r.object));
  }
  h = mix(h ^ r.inbox_hash ^ (std::uint64_t{r.halted} << 1 | std::uint64_t{r.down}));
  hash_total += h - r.contribution;
  r.contribution = h;
}

void actor_runtime::publish_hash() { heddle::state_hash(hash_total); }

// --- sending ----------------------------------------------------------------

void actor_runtime::send(actor_id to, std::unique_ptr<event_base> event, std::source_location loc) {
  actor_record* sender = running_actor();
  ++(sender != nullptr ? sender->counts : outside).sent;
  actor_record* r = find(to);
  if (r == nullptr)
    report_misuse(fmt::format("send of {} to actor {}, which is no actor of this iteration", event->name(), to.value()),
                  loc);
  scheduling_point(point_kind::send, r->inbox_resource, loc);
  if (r->halted || r->down) {
    ++r->counts.dropped;
    note(fmt::format("{} to {} is lost: {} is {}", event->name(), r->name, r->name, r->down ? "down" : "halted"));
    return;
  }
  envelope e{std::move(event), sender != nullptr ? sender->id : actor_id{}, loc, 0};
  if (faults_on_ && !deliver_with_faults(*r, e)) return;
  deliver(*r, std::move(e));
}

void actor_runtime::deliver(actor_record& r, envelope e) {
  r.inbox_hash += type_hash(*e.event);
  r.inbox.push_back(std::move(e));
  refresh_hash(r);
  publish_hash();
  heddle::signal(r.inbox_resource);
}

void actor_runtime::requeue_front(actor_record& r, std::unique_ptr<event_base> e) {
  r.inbox_hash += type_hash(*e);
  r.inbox.push_front({std::move(e), r.id, std::source_location{}, 0});
}

namespace {
// Takes `it` out of `r`'s inbox, with its bookkeeping.
envelope take(actor_runtime& rt, actor_record& r, std::deque<envelope>::iterator it) {
  envelope e = std::move(*it);
  r.inbox.erase(it);
  r.inbox_hash -= type_hash(*e.event);
  if (e.timer != 0) rt.timer_event_taken(e.timer);
  return e;
}
}  // namespace

// --- receiving --------------------------------------------------------------

std::unique_ptr<event_base> actor_runtime::receive(const std::function<bool(event_base&)>& accept,
                                                   std::string_view what, std::source_location loc) {
  actor_record* r = running_actor();
  if (r == nullptr) report_misuse(fmt::format("receive<{}>() outside an actor's handler", what), loc);
  bool pointed = false;
  for (;;) {
    const auto it = std::find_if(r->inbox.begin(), r->inbox.end(), [&](envelope& e) { return accept(*e.event); });
    if (it == r->inbox.end()) {
      r->receiving = true;
      const object_id inbox = r->inbox_resource.id();
      engine_.wait({&inbox, 1}, wait_mode::one, std::nullopt, point_kind::receive, loc);
      r->receiving = false;
      pointed = true;
      continue;
    }
    if (!pointed) {
      scheduling_point(point_kind::receive, r->inbox_resource, loc);
      pointed = true;
      continue;  // the inbox may have grown meanwhile; the event found is still first
    }
    envelope e = take(*this, *r, it);
    refresh_hash(*r);
    publish_hash();
    return std::move(e.event);
  }
}

// --- the actor loop -----------------------------------------------------------

namespace {

void halt(actor_runtime& rt, actor_record& r) {
  actor_record::on_halt(*r.object);
  rt.stop_timers(r);
  r.counts.dropped += r.inbox.size();
  r.inbox.clear();
  r.inbox_hash = 0;
  r.halted = true;
  rt.note(fmt::format("{} halts", r.name));
  rt.refresh_hash(r);
  rt.publish_hash();
}

// After a handler: true when the actor halted.
bool after_handler(actor_runtime& rt, actor_record& r) {
  ++r.counts.handled;
  if (std::exchange(actor_record::halt_requested(*r.object), false)) {
    halt(rt, r);
    return true;
  }
  rt.refresh_hash(r);
  rt.publish_hash();
  return false;
}

void dispatch(actor_runtime& rt, actor_record& r, envelope& e) {
  if (actor_record::dispatch(*r.object, *e.event)) return;
  if (e.event->type() == typeid(halt_event)) {
    actor_record::halt_requested(*r.object) = true;
    return;
  }
  (void)rt;
  report_unhandled(r.name, actor_record::where_text(*r.object), e.event->name(), e.sent_at);
}

std::deque<envelope>::iterator first_dequeuable(actor_record& r) {
  for (auto it = r.inbox.begin(); it != r.inbox.end(); ++it)
    if (!actor_record::defers(*r.object, it->event->type())) return it;
  return r.inbox.end();
}

// A crash: the inbox and timers are lost; with restart the actor comes back
// when next scheduled. Returns false when it stays down for good.
bool crash(actor_runtime& rt, actor_record& r) {
  const faults::crash_options how = *r.crash;
  ++r.counts.crashes;
  r.counts.dropped += r.inbox.size();
  r.inbox.clear();
  r.inbox_hash = 0;
  rt.stop_timers(r);
  r.down = true;
  rt.note(fmt::format("{} crashes{}", r.name,
                      !how.restart ? " for good" : how.keep_state ? " (restarts with its state)" : " (restarts afresh)"));
  for (const auto& observe : rt.crash_observers) observe(r.id);
  if (!how.restart) {
    r.halted = true;
    rt.refresh_hash(r);
    rt.publish_hash();
    return false;
  }
  rt.refresh_hash(r);
  rt.publish_hash();
  // Down until the strategy schedules it again: sends meanwhile are lost.
  scheduling_point(point_kind::yield, r.inbox_resource, std::source_location{});
  r.down = false;
  rt.note(fmt::format("{} restarts", r.name));
  if (how.keep_state) {
    actor_record::restart(*r.object);
  } else {
    r.object = r.factory();
    actor_record::attach(*r.object, r.id, &r);
    actor_record::begin(*r.object);
  }
  return !after_handler(rt, r);
}

}  // namespace

void run_actor(actor_record& r) {
  actor_runtime& rt = runtime();
  actor_record::begin(*r.object);
  if (after_handler(rt, r)) return;
  bool pointed = false;
  for (;;) {
    auto it = first_dequeuable(r);
    const bool fallback = it == r.inbox.end() && actor_record::has_default(*r.object);
    if (it == r.inbox.end() && !fallback) {
      r.idle = true;
      const object_id inbox = r.inbox_resource.id();
      rt.engine_.wait({&inbox, 1}, wait_mode::one, std::nullopt, point_kind::receive, std::source_location{});
      r.idle = false;
      pointed = true;
      continue;
    }
    if (!pointed) {
      scheduling_point(point_kind::receive, r.inbox_resource, std::source_location{});
      pointed = true;
      continue;  // look again: a send may have come first
    }
    pointed = false;
    if (r.crash && rt.crash_now(r)) {
      if (!crash(rt, r)) return;
      continue;
    }
    if (fallback) {
      actor_record::run_default(*r.object);
    } else {
      envelope e = take(rt, r, it);
      dispatch(rt, r, e);
    }
    if (after_handler(rt, r)) return;
  }
}

// --- entry points of the public header --------------------------------------

actor_id create_actor(std::function<std::unique_ptr<actor>()> factory, std::string name) {
  return runtime().create(std::move(factory), std::move(name));
}

void send_event(actor_id to, std::unique_ptr<event_base> event, std::source_location loc) {
  runtime(loc).send(to, std::move(event), loc);
}

actor* running_actor() noexcept {
  actor_runtime* rt = runtime_if_any();
  actor_record* r = rt != nullptr ? rt->running_actor() : nullptr;
  return r != nullptr ? r->object.get() : nullptr;
}

std::unique_ptr<event_base> receive_event(const std::function<bool(event_base&)>& accept, std::string_view what,
                                          std::source_location loc) {
  return runtime(loc).receive(accept, what, loc);
}

}  // namespace detail

// --- heddle::actor ------------------------------------------------------------

void actor::set_handler(std::type_index type, detail::handler h) {
  for (auto& [t, existing] : handlers_)
    if (t == type) {
      existing = std::move(h);
      return;
    }
  handlers_.emplace_back(type, std::move(h));
}

void actor::begin() { on_start(); }
bool actor::defers(std::type_index) const { return false; }
bool actor::has_default_handler() const { return false; }
void actor::run_default_handler() {}
void actor::restart() { on_restart(); }

bool actor::dispatch(detail::event_base& e) {
  for (auto& [t, h] : handlers_)
    if (t == e.type()) {
      h(e);
      return true;
    }
  return false;
}

std::string actor_id::name() const {
  if (value_ == 0) return "none";
  if (detail::actor_runtime* rt = detail::runtime_if_any())
    if (const detail::actor_record* r = rt->find(*this)) return r->name;
  return fmt::format("actor({})", value_);
}

std::string to_string(actor_id id) { return id.name(); }

std::ostream& operator<<(std::ostream& out, actor_id id) { return out << id.name(); }

actor_counts counts(actor_id id) {
  detail::actor_runtime* rt = detail::runtime_if_any();
  if (rt == nullptr) return {};
  if (id.value() == 0) return rt->outside;
  const detail::actor_record* r = rt->find(id);
  return r != nullptr ? r->counts : actor_counts{};
}

bool halted(actor_id id) {
  detail::actor_runtime* rt = detail::runtime_if_any();
  const detail::actor_record* r = rt != nullptr ? rt->find(id) : nullptr;
  return r != nullptr && r->halted;
}

}  // namespace heddle
