// The shared memory between the fork server (the parent, which holds the
// strategy) and the child that runs one iteration of the program.
//
// Protocol: `turn` says who acts. The child runs while it is `child`; at each
// decision it mirrors what it has (steps taken, operation names, objects),
// writes the question, sets `turn` to `parent` and sleeps on the word; the
// parent answers and hands the turn back. Both are pinned to one CPU, so a
// round trip is two same-CPU futex hand-offs. Because every decision is taken
// in the parent and every finished step is mirrored before the next question,
// a child that crashes, aborts or hangs loses nothing the trace needs.
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

enum class turn : std::uint32_t { child = 0, parent = 1 };

enum class request : std::uint32_t {
  next_operation,  // answer: an index into `enabled`
  next_value,      // answer: a value below `question_choice.bound`
  ended,           // the iteration ended in the engine (bug, deadlock, max steps, stop)
  exiting,         // the program is exiting with `exit_status`
};

// How an operation last looked, for reports of crashes and hangs.
struct operation_mirror {
  char name[name_length];
  point_kind point;
  object_id object;
  std::uint8_t status;  // detail::op_status
  std::int32_t tid;     // its OS thread (0 until it asked a question)
  std::source_location where;
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
  std::atomic<std::uint32_t> turn_word;  // a heddle::rt::turn
  request question;
  // The question: the decision context and, for next_value, the choice.
  std::uint32_t enabled_count;
  operation_id current;
  std::uint64_t step;
  std::uint64_t operation_count;
  std::uint64_t user_state_hash;
  std::uint8_t current_finished;
  detail::choice question_choice;
  // The answer: an index or a value, or strategy::stop to stop the
  // iteration, `stop_reason` then saying why.
  std::uint64_t answer;
  char stop_reason[512];
  // The end: how the iteration or the program ended.
  std::int32_t exit_status;
  std::uint8_t hit_max_steps;
  char stopped[512];  // the engine's reason when the strategy stopped it
  bug_record found;
  crash_record crash;
  // The mirror. Invariant: the first `steps_mirrored` entries of `steps()`,
  // and the first `operations_mirrored`/`objects_mirrored` entries of the
  // tables, equal the engine's at the time of the last question.
  std::uint64_t steps_mirrored;
  std::uint32_t operations_mirrored;
  std::uint32_t objects_mirrored;
  std::uint64_t step_capacity;
  detail::pending_operation enabled[max_operations];
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
