// A trace made readable: who ran each step, what it touched, where in the
// source. The text report, the HTML report and the Perfetto export all draw
// from it, whether the trace was just recorded or read back from a file.
//
// Contract: a timeline built from an iteration's outcome knows operation
// names, object kinds and source locations; the trace JSON it writes keeps
// them under "annotations" (ignored by trace_from_json(), so the file stays a
// trace that `heddle replay` reads). A timeline read from a trace without
// annotations (a compact trace, a crash's trace) still knows who ran each step
// (the chosen operation; for a data choice, the operation that last ran) but
// not names, object kinds or source lines. A bug's trace file holds the trace
// the runner saved (the minimized one), and may carry the trace it was
// minimized from under "original", in the same shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/engine.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

// Turns a code address of an instrumented program into a source position.
// libheddle-rt installs one (libdw); without it, steps recorded with a pc but
// no source_location show no position. Called only while a timeline is made.
inline source_position (*symbolize_pc)(std::uintptr_t pc) = nullptr;

struct timeline_step {
  trace_step step;
  operation_id operation = 0;  // who ran (schedule) or who chose (data choice)
  std::string object;          // "mutex #2", "op 3", "#2" when the kind is unknown; empty for none
  std::string file;            // where the operation's pending point was; empty when unknown
  std::uint32_t line = 0;
  bool preemption = false;     // another operation was chosen while this step's predecessor could run on
  // A notify_one: the operation it woke, step_record::woke_nobody when none
  // waited, 0 when not known.
  operation_id woke = 0;
  // A notify_all (woke == step_record::woke_several): every operation it woke.
  std::vector<operation_id> woken;
  // The value a read, rmw or compare-exchange saw ("5", "0x7f...",
  // engine/names.hpp's value_text), "" when not noted. A compare-exchange
  // also has the value it expected and whether it succeeded.
  std::string seen;
  std::string expected;    // "" unless a compare-exchange
  bool succeeded = false;  // a compare-exchange that saw what it expected
  // rc11: what the weak-memory model says about this choice (a stale read,
  // a store placed before newer ones; runner/weak_note_text.hpp), "" for none.
  std::string weak;
  // What a runtime said about the step (iteration_outcome::notes): a state
  // machine's transition, an injected fault, a monitor turning hot; "; "
  // between several, "" for none.
  std::string note;
};

// One row of an interleaving: a step of an operation, with the data choices
// that operation took right after it folded in (a spurious failure, which
// waiter a notify woke), so a row says what the operation did.
struct timeline_row {
  std::size_t first = 0;  // the step it starts at
  std::size_t last = 0;   // the last step folded into it
};

// What a timeline needs from an iteration's outcome, copied without
// formatting anything: a bug's report is formatted later, when it is read,
// after the engine has run other iterations.
struct recorded_annotations {
  std::vector<step_record> steps;
  std::vector<std::string> operation_names;                   // index = operation id
  std::vector<std::pair<object_kind, operation_id>> objects;  // index = object id: kind, owner
  std::vector<std::pair<std::uint64_t, operation_id>> woken;  // iteration_outcome::woken
  // Of the bug, the operation it was found in (0: none) and that operation's
  // name: all a timeline takes from it (a copy of the whole bug would be three
  // more allocations on the bug path, issue 14).
  operation_id found_operation = 0;
  std::string found_operation_name;
  std::vector<weak_note> weak_notes;  // rc11: stale reads and stores placed early
  std::vector<std::pair<std::uint64_t, std::string>> notes;  // iteration_outcome::notes
};
recorded_annotations annotations_of(const iteration_outcome& o);

struct timeline {
  std::string label;  // "original", "minimized"
  heddle::trace trace;
  std::vector<std::string> operation_names;  // index = operation id - 1; "" when unnamed
  std::vector<timeline_step> steps;
  std::optional<std::uint64_t> preemptions;  // when measured (a guided re-run)
  bool annotated = false;  // names, objects and source locations are known

  std::size_t operation_count() const { return operation_names.size(); }
  // "op 2 (worker)" or "op 2".
  std::string operation_title(operation_id id) const;
  // "acquire mutex #2", "choose 1", "start", "read atomic #3: saw 5",
  // "signal condition_variable #7: wakes op 3 (cons1)".
  std::string step_text(std::size_t index) const;
  // The rows of the interleaving (timeline_row), in step order.
  std::vector<timeline_row> rows() const;
  // A row's text: its step's, then what its folded choices decided.
  std::string row_text(const timeline_row& row) const;
  // "lock.cpp:14" (the file's last component), or "".
  std::string step_where(std::size_t index) const;
};

// From an iteration as the engine left it. When the run's preemptions were
// measured (a guided re-run), `preemption_steps` lists the steps that were.
timeline make_timeline(std::string label, const trace& t, const iteration_outcome& o,
                       const std::vector<std::uint64_t>* preemption_steps = nullptr);
timeline make_timeline(std::string label, const trace& t, const recorded_annotations& o,
                       const std::vector<std::uint64_t>* preemption_steps = nullptr);

// From a trace alone: who ran, but no names or source locations.
timeline make_timeline(std::string label, const trace& t);

// The trace JSON of `saved` with its annotations; with `original`, the trace
// `saved` was minimized from, under "original".
std::string timeline_json(const timeline& saved, const timeline* original = nullptr);

// Reads a trace file (JSON or compact). Returns its timelines in the order
// they came to be: the original under "original" when the file carries one,
// then the file's own trace (labelled "minimized" in that case, "original"
// otherwise). Throws trace_error naming the problem.
std::vector<timeline> load_timelines(const std::string& path);
// The same from the text of a JSON trace file.
std::vector<timeline> timelines_from_json(const std::string& text);

}  // namespace heddle::detail
