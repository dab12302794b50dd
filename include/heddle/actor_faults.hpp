// Failure injection for actors: crashes, lost, duplicated and delayed
// messages, network partitions (docs/actors.md, "Failure injection").
//
//   heddle::explore({}, [] {
//     auto a = heddle::create<replica>(), b = heddle::create<replica>();
//     heddle::faults::allow_crash(a, {.restart = true, .keep_state = false});
//     heddle::faults::set_link(a, b, {.drop = true, .duplicate = true});
//     heddle::faults::allow_partition({a}, {b});
//     ...
//   });
//
// Contract: every fault is off until the test switches it on, for the
// running iteration, from the test body (or anywhere under control). Whether
// a fault happens at a given place is a rare data choice (choose_rare: the
// random strategies take it about once in 16, systematic ones explore both),
// so it is recorded in the trace, replayed and minimized like any decision.
// Once the iteration's budget of faults is spent (set_budget; 3 by default)
// no more are injected and no more choices are taken for them.
// - A link (from, to) with drop, duplicate or delay on: each send on it takes
//   one rare choice "fault here?" and, if more than one kind is on, a choice
//   of which. drop: the event is lost. duplicate: it is delivered twice, in a
//   row (events that cannot be copied are never duplicated). delay: it is
//   handed to an operation of its own that delivers it when the strategy
//   chooses; it is the one fault that breaks FIFO order on its link: later
//   events may overtake it.
// - A crash of an actor allowed to crash happens before one of its handlers
//   (a rare choice at each dequeue): its inbox is lost, its timers stop, and
//   events sent to it while it is down are dropped. With restart, it comes
//   back when the strategy next schedules it, as a new object built from its
//   creation arguments (its state lost; on_start or its start state again) or,
//   with keep_state, as the same object (on_restart runs; a state machine
//   stays in its state). Without restart it stays down (crash-stop).
// - A partition between two sets of actors starts by a rare choice at a send
//   across it; while it lasts every event across it, either way, is dropped.
//   With heal, each dropped event may end it (another rare choice). A
//   partition counts once against the budget.
// Every fault is noted on its step: "drop ping from client(1) to server(2)".
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <vector>

#include "heddle/actor.hpp"

namespace heddle::faults {

struct link_options {
  bool drop = false;
  bool duplicate = false;
  bool delay = false;
};
// The options of every link not given its own with set_link (none by default).
void set_links(link_options options);
// The options of the link from `from` to `to` (one direction).
void set_link(actor_id from, actor_id to, link_options options);

struct crash_options {
  bool restart = true;      // come back after the crash (else crash-stop)
  bool keep_state = false;  // come back as the same object, not a new one
  std::uint32_t max = 1;    // crashes of this actor per iteration
};
void allow_crash(actor_id id, crash_options options = {});

struct partition_options {
  bool heal = true;  // the partition may end (else it lasts to the end)
};
void allow_partition(std::vector<actor_id> side_a, std::vector<actor_id> side_b, partition_options options = {});

// The most faults one iteration injects (3 by default).
void set_budget(std::uint32_t faults);

// Calls `observer` with the id of each actor that crashes, as it crashes (to
// tell a monitor: notify<failure_detected>(crashed{id})).
void on_crash(std::function<void(actor_id)> observer);

}  // namespace heddle::faults
