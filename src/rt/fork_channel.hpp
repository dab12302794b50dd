// The shared memory between the fork server (the parent, which holds the
// strategy) and the child that runs one iteration of the program.
//
// Protocol: the child decides on its own. It inherited the parent's strategy
// by fork, in the state the parent left it after begin_iteration, so it takes
// every decision locally and appends each to the decision log below: what the
// strategy was told (the decision context, the enabled set in a shared pool)
// and what it answered. The parent sleeps until the child is gone, then feeds
// the logged decisions to its own strategy, which answers the same (a
// strategy depends only on its seed, its own state and what it is told) and
// so learns what the child's copy learned: dfs and dpor backtrack, pct counts
// steps, ql updates its table, across iterations as in process.
//
// A full log is the one hand-off: the child sets `turn_word` to `parent`,
// signals the parent's eventfd and sleeps on the word; the parent feeds the
// log to its strategy, empties it and hands the turn back. Records are
// complete before `decisions_logged` counts them, and every finished step is
// mirrored before the next decision, so a child that crashes, aborts or hangs
// loses nothing the trace needs. `progress` counts every decision of the
// iteration, for the watchdog.
//
// Everything here is plain data of fixed size, written by the child and read
// by the parent only while the child waits or is dead. Source locations are
// copied as they are: they point into the program's and the runtime's static
// data, which the parent has at the same addresses (the child is its fork).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "engine/engine.hpp"
#include "engine/strategy.hpp"

namespace heddle::rt {

inline constexpr std::size_t max_operations = 1024;
inline constexpr std::size_t max_objects = 1 << 16;
inline constexpr std::size_t name_length = 64;
// Log capacities: a full log costs one hand-off to the parent, so these only
// bound the shared memory (about 1.8 MB, touched as far as an iteration goes).
inline constexpr std::size_t decision_capacity = 4096;
inline constexpr std::size_t enabled_capacity = 1 << 16;
inline constexpr std::size_t names_capacity = 1 << 14;  // choice::names, rc11

enum class turn : std::uint32_t { child = 0, parent = 1 };

// How far the child got.
enum class ending : std::uint32_t {
  running,  // (or died without saying more)
  ended,    // the iteration ended in the engine (bug, deadlock, max steps, stop)
  exiting,  // the program is exiting with `exit_status`
};

// One decision the child took: the strategy's input and its answer.
struct decision_record {
  std::uint64_t step;
  std::uint64_t operation_count;
  std::uint64_t user_state_hash;
  std::uint64_t answer;           // an index into the enabled set, a value, or strategy::stop
  detail::choice value_choice;    // for a next_value decision
  operation_id current;
  std::uint32_t enabled_first;    // the enabled set: enabled_pool[first, first + count)
  std::uint32_t enabled_count;
  std::uint8_t is_value;          // next_value (else next_operation)
  std::uint8_t current_finished;
  // The rest of decision_context (and choice::names), so that a strategy in
  // the parent answers as its copy in the child did (dpor's sleep sets and,
  // under rc11, its dependence between atomic accesses).
  std::uint8_t current_point_known;
  std::uint8_t has_weak;          // decision_context::weak was not null
  std::uint8_t has_names;         // value_choice.names: names_pool[names_first, + bound)
  point_kind current_point;
  object_id current_object;
  std::uint32_t names_first;
  detail::weak_access weak;
};

// How an operation last looked, for reports of crashes and hangs.
struct operation_mirror {
  char name[name_length];
  point_kind point;
  object_id object;
  std::uint8_t status;  // detail::op_status
  std::int32_t tid;     // its OS thread (0 until it took a decision)
  std::source_location where;
  // A thread's start routine (pthread_create): a report names an operation
  // that has no name of its own (pthread_setname_np) after it.
  std::uintptr_t start_pc;
};

struct object_mirror {
  object_kind kind;
  operation_id owner;
};

struct crash_record {
  std::int32_t signal;  // 0: none
  operation_id operation;
  std::uint8_t stack_overflow;
};

struct bug_record {
  std::uint8_t present;
  bug_kind kind;
  operation_id operation;
  std::uint32_t line;
  std::uint64_t step;
  char message[4096];
  char operation_name[name_length];
  char file[1024];
  char function[512];
};

struct fork_channel {
  std::atomic<std::uint32_t> turn_word;  // a heddle::rt::turn: who acts while the log is full
  std::atomic<std::uint64_t> progress;   // decisions taken in this iteration
  operation_id current;                  // the operation of the last decision
  // The log. Invariant: decisions[0, decisions_logged) are complete and use
  // enabled_pool[0, enabled_used); the parent empties both at a hand-off.
  std::atomic<std::uint64_t> decisions_logged;
  std::uint32_t enabled_used;
  decision_record decisions[decision_capacity];
  detail::pending_operation enabled_pool[enabled_capacity];
  std::uint32_t names_used;  // names_pool[0, names_used): emptied with the log
  std::uint64_t names_pool[names_capacity];
  // rc11: the model's record of the last atomic access and its execution
  // graph's identity when the iteration ended (iteration_summary).
  std::uint8_t has_weak_final;
  detail::weak_access weak_final;
  std::uint64_t weak_execution;
  // The end: how the iteration or the program ended.
  ending end;
  std::int32_t exit_status;
  std::uint8_t hit_max_steps;
  std::uint8_t weak_order;  // iteration_outcome::weak_order
  std::uint8_t sc_in_run_order;  // iteration_outcome::sc_in_run_order
  char stopped[512];  // the engine's reason when the strategy stopped it
  bug_record found;
  crash_record crash;
  // rt::uncontrolled_input bits: what the program read that a replay cannot
  // reproduce (uncontrolled_inputs.hpp), for a divergence's likely cause.
  std::atomic<std::uint32_t> uncontrolled_inputs;
  // The mirror. Invariant: the first `steps_mirrored` entries of `steps()`,
  // and the first `operations_mirrored`/`objects_mirrored` entries of the
  // tables, equal the engine's at the time of the last decision.
  std::uint64_t steps_mirrored;
  std::uint32_t operations_mirrored;
  std::uint32_t objects_mirrored;
  std::uint64_t step_capacity;
  operation_mirror operations[max_operations];  // index = operation id
  object_mirror objects[max_objects];           // index = object id
  // step_capacity step records follow.
  detail::step_record* steps() noexcept { return reinterpret_cast<detail::step_record*>(this + 1); }

  static std::size_t size_for(std::uint64_t max_steps) noexcept {
    return sizeof(fork_channel) + (max_steps + 2) * sizeof(detail::step_record);
  }
};

// Copies text into a fixed buffer, cut to fit, always terminated.
template <std::size_t N>
void copy_text(char (&to)[N], const char* from) noexcept {
  std::size_t i = 0;
  for (; from != nullptr && from[i] != '\0' && i + 1 < N; ++i) to[i] = from[i];
  to[i] = '\0';
}

}  // namespace heddle::rt
