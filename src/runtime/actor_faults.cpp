// Failure injection (heddle/actor_faults.hpp): lost, duplicated and delayed
// events per link, partitions, and the decision to crash an actor.
//
// Every fault is a rare data choice (choose_rare) taken where it could
// happen, so it is recorded, replayed and minimized like a scheduling
// decision, and random strategies inject one about once in 16 chances.
// Nothing is asked while faults are off, so a test without faults has the
// same decisions (and traces) as before this file existed. The budget bounds
// the faults of one iteration; once spent, no more choices are taken.
#include <algorithm>

#include <fmt/format.h>

#include "runtime/actor_runtime.hpp"

namespace heddle::detail {

namespace {
std::string sender_name(actor_id from) { return from ? from.name() : std::string("the test"); }
}  // namespace

bool partition_record::separates(actor_id x, actor_id y) const {
  const auto in = [](const std::vector<actor_id>& side, actor_id id) {
    return std::find(side.begin(), side.end(), id) != side.end();
  };
  return (in(a, x) && in(b, y)) || (in(b, x) && in(a, y));
}

bool actor_runtime::deliver_with_faults(actor_record& to, envelope& e) {
  // Partitions first: an event across an active one is lost.
  for (partition_record& p : partitions) {
    if (!p.separates(e.from, to.id)) continue;
    if (p.now == partition_record::phase::not_started && budget > 0 &&
        choose_rare(point_kind::send, to.inbox_resource)) {
      --budget;
      p.now = partition_record::phase::active;
      note("a network partition begins");
    }
    if (p.now != partition_record::phase::active) continue;
    ++to.counts.dropped;
    note(fmt::format("{} from {} to {} is lost in the partition", e.event->name(), sender_name(e.from), to.name));
    if (p.options.heal && choose_rare(point_kind::send, to.inbox_resource)) {
      p.now = partition_record::phase::healed;
      note("the network partition heals");
    }
    return false;
  }
  faults::link_options link = default_link;
  for (const auto& [pair, options] : links)
    if (pair.first == e.from && pair.second == to.id) link = options;
  const bool duplicable = link.duplicate && e.event->clone() != nullptr;
  const int kinds = int{link.drop} + int{duplicable} + int{link.delay};
  if (kinds == 0 || budget == 0 || !choose_rare(point_kind::send, to.inbox_resource)) return true;
  --budget;
  std::uint64_t pick = kinds > 1 ? choose_int(static_cast<std::uint64_t>(kinds)) : 0;
  const auto next_is = [&pick](bool on) {
    if (!on) return false;
    return pick-- == 0;
  };
  const std::string what = fmt::format("{} from {} to {}", e.event->name(), sender_name(e.from), to.name);
  if (next_is(link.drop)) {
    ++to.counts.dropped;
    note(fmt::format("{} is dropped", what));
    return false;
  }
  if (next_is(duplicable)) {
    ++to.counts.duplicated;
    note(fmt::format("{} is duplicated", what));
    deliver(to, {e.event->clone(), e.from, e.sent_at, 0});
    return true;
  }
  // Delayed: an operation of its own delivers it when the strategy chooses.
  ++to.counts.delayed;
  note(fmt::format("{} is delayed", what));
  auto held = std::make_shared<envelope>(std::move(e));
  actor_record* target = &to;
  heddle::spawn(
      [this, target, held] {
        scheduling_point(point_kind::send, target->inbox_resource, held->sent_at);
        if (target->halted || target->down) {
          ++target->counts.dropped;
          return;
        }
        deliver(*target, std::move(*held));
      },
      fmt::format("delayed {}", held->event->name()));
  return false;
}

bool actor_runtime::crash_now(actor_record& r) {
  if (budget == 0 || r.counts.crashes >= r.crash->max) return false;
  if (!choose_rare(point_kind::receive, r.inbox_resource)) return false;
  --budget;
  return true;
}

}  // namespace heddle::detail

namespace heddle::faults {

namespace {
detail::actor_runtime& switched_on() {
  detail::actor_runtime& rt = detail::runtime();
  rt.faults_on_ = true;
  return rt;
}
}  // namespace

void set_links(link_options options) { switched_on().default_link = options; }

void set_link(actor_id from, actor_id to, link_options options) {
  detail::actor_runtime& rt = switched_on();
  for (auto& [pair, existing] : rt.links)
    if (pair.first == from && pair.second == to) {
      existing = options;
      return;
    }
  rt.links.push_back({{from, to}, options});
}

void allow_crash(actor_id id, crash_options options) {
  detail::actor_runtime& rt = switched_on();
  detail::actor_record* r = rt.find(id);
  if (r == nullptr) report_misuse(fmt::format("allow_crash of actor {}, which is no actor of this iteration", id.value()));
  r->crash = options;
}

void allow_partition(std::vector<actor_id> side_a, std::vector<actor_id> side_b, partition_options options) {
  detail::actor_runtime& rt = switched_on();
  rt.partitions.push_back({std::move(side_a), std::move(side_b), options});
}

void set_budget(std::uint32_t faults) { detail::runtime().budget = faults; }

void on_crash(std::function<void(actor_id)> observer) { detail::runtime().crash_observers.push_back(std::move(observer)); }

}  // namespace heddle::faults
