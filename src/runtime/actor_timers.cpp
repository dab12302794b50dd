// Actor timers on virtual time (actor::start_timer, start_periodic_timer).
//
// As with Coyote's mock timers, when a timer fires is the strategy's choice:
// each timer is an operation that sleeps on its own timer object until its
// due time, and a sleeper with a deadline is one the strategy may choose at
// any decision, the virtual clock then jumping to its deadline. Choosing it
// is the firing: the event goes into the owner's inbox at once, without a
// second decision. A periodic timer then waits until the owner has dequeued
// that event before it sleeps again, so a timer never floods an inbox and a
// test whose actors are idle apart from their timers' events still ends; a
// timer waiting so is idle, like its owner. Stopping a timer wakes its
// operation, which finishes.
#include <fmt/format.h>

#include "runtime/actor_runtime.hpp"

namespace heddle::detail {

namespace {
void run_timer(actor_runtime& rt, timer_record& t) {
  const object_id self = t.signal.id();
  virtual_time deadline = rt.engine_.now() + t.due.count();
  for (;;) {
    rt.engine_.wait({&self, 1}, wait_mode::one, deadline, point_kind::sleep, std::source_location{});
    if (t.stopped || t.owner->halted || t.owner->down) return;
    if (rt.engine_.now() < deadline) continue;  // woken early by something else: sleep on
    std::unique_ptr<event_base> e = t.event->clone();
    if (t.fills_id) static_cast<timer_elapsed*>(e->value())->timer = t.id;
    rt.note(fmt::format("timer {} of {} fires", t.id.value(), t.owner->name));
    t.pending = t.period.count() > 0;
    rt.deliver(*t.owner, {std::move(e), t.owner->id, std::source_location{}, t.pending ? t.id.value() : 0});
    if (!t.pending) {
      t.stopped = true;
      return;
    }
    while (t.pending && !t.stopped) {
      t.waiting = true;
      rt.engine_.wait({&self, 1}, wait_mode::one, std::nullopt, point_kind::wait, std::source_location{});
      t.waiting = false;
    }
    if (t.stopped) return;
    deadline = rt.engine_.now() + t.period.count();
  }
}
}  // namespace

timer_id actor_runtime::start_timer(actor_record& owner, std::chrono::nanoseconds due, std::chrono::nanoseconds period,
                                    std::unique_ptr<event_base> event, bool fills_id) {
  if (event->clone() == nullptr)
    report_misuse(fmt::format("a timer's event must be copyable, and {} is not", event->name()));
  auto owned = std::make_unique<timer_record>();
  timer_record& t = *owned;
  t.id = timer_id(static_cast<std::uint32_t>(timers.size() + 1));
  t.owner = &owner;
  t.event = std::move(event);
  t.fills_id = fills_id;
  t.due = std::max(due, std::chrono::nanoseconds{0});
  t.period = std::max(period, std::chrono::nanoseconds{0});
  timers.push_back(std::move(owned));
  owner.timers.push_back(&t);
  t.op = heddle::spawn([this, &t] { run_timer(*this, t); }, fmt::format("timer {} of {}", t.id.value(), owner.name));
  return t.id;
}

void actor_runtime::stop_timer(timer_record& t) {
  if (t.stopped) return;
  t.stopped = true;
  heddle::signal(t.signal);
}

void actor_runtime::stop_timers(actor_record& r) {
  for (timer_record* t : r.timers) stop_timer(*t);
  r.timers.clear();
}

timer_record* actor_runtime::find_timer(timer_id id) noexcept {
  return id.value() >= 1 && id.value() <= timers.size() ? timers[id.value() - 1].get() : nullptr;
}

void actor_runtime::timer_event_taken(std::uint32_t timer) {
  timer_record* t = find_timer(timer_id(timer));
  if (t == nullptr || !t->pending) return;
  t->pending = false;
  heddle::signal(t->signal);
}

timer_id start_timer(actor& owner, std::chrono::nanoseconds due, std::chrono::nanoseconds period,
                     std::unique_ptr<event_base> event, bool fills_timer_id) {
  actor_runtime& rt = runtime();
  actor_record* r = actor_record::of(owner);
  if (r == nullptr) report_misuse("start_timer before the actor was created (call it in on_start or a handler)");
  return rt.start_timer(*r, due, period, std::move(event), fills_timer_id);
}

void stop_timer(actor& owner, timer_id timer) {
  actor_runtime& rt = runtime();
  timer_record* t = rt.find_timer(timer);
  if (t == nullptr || t->owner != actor_record::of(owner))
    report_misuse(fmt::format("stop_timer of timer {}, which is not a timer of {}", timer.value(), owner.name()));
  rt.stop_timer(*t);
}

}  // namespace heddle::detail
