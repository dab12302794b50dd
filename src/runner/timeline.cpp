// Timelines (see timeline.hpp), and their place in a trace file:
//
//   {"format": "heddle-trace", ... the trace ...,
//    "annotations": {"operations": ["main", "worker"],
//                    "steps": [[1, "", "bank.cpp", 12, false], [2, "mutex #3", "bank.cpp", 20, true], ...],
//                    "preemptions": 1},
//    "original": {"format": "heddle-trace", ... the trace it was minimized from, with its "annotations" ...}}
//
// Each annotation step is [operation, object, file, line, preemption], one per
// trace step, followed by [woke, seen] when the step has a note: woke is the
// operation a notify_one woke (0: none waited; null: not a notify), or the
// array of those a notify_all woke, seen the
// value a read, rmw or compare-exchange saw, as text (null: none). A
// compare-exchange adds [expected, succeeded]: the value it expected, as
// text, and whether it saw it.
// "weak_memory", present under rc11 when the model noted something, holds
// [step, text] pairs: what a stale read read and missed, or where a store was
// placed (runner/weak_note_text.hpp).
// "notes", present when a runtime noted something (iteration_outcome::notes),
// holds [step, text] pairs: a state machine's transition, an injected fault.
// "preemptions" is present when they were measured.
#include "runner/timeline.hpp"

#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/names.hpp"
#include "runner/weak_note_text.hpp"

namespace heddle::detail {
namespace {

using nlohmann::json;

std::string basename(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string object_text(const recorded_annotations& o, object_id id) {
  if (id == 0) return {};
  if (id < o.objects.size()) {
    const auto [kind, owner] = o.objects[id];
    if (kind == object_kind::operation) return fmt::format("op {}", owner);
    return fmt::format("{} #{}", to_string(kind), id);
  }
  return fmt::format("#{}", id);
}

// Who ran each step when only the trace is known: the chosen operation; a data
// choice is taken by the operation that ran last.
void fill_operations(timeline& t) {
  operation_id running = 0;
  operation_id highest = 0;
  t.steps.resize(t.trace.steps.size());
  for (std::size_t i = 0; i < t.trace.steps.size(); ++i) {
    const trace_step& s = t.trace.steps[i];
    if (s.kind == step_kind::schedule) running = static_cast<operation_id>(s.value);
    t.steps[i].step = s;
    t.steps[i].operation = running;
    highest = std::max(highest, running);
  }
  t.operation_names.resize(highest);
}

json annotations_json(const timeline& t) {
  json steps = json::array();
  for (const timeline_step& s : t.steps) {
    json step = {s.operation, s.object, s.file, s.line, s.preemption};
    if (s.woke != 0 || !s.seen.empty()) {
      step.push_back(s.woke == 0                           ? json(nullptr)
                     : s.woke == step_record::woke_several ? json(s.woken)
                                                           : json(s.woke == step_record::woke_nobody ? 0 : s.woke));
      step.push_back(s.seen.empty() ? json(nullptr) : json(s.seen));
      if (!s.expected.empty()) {
        step.push_back(s.expected);
        step.push_back(s.succeeded);
      }
    }
    steps.push_back(std::move(step));
  }
  json a = {{"operations", t.operation_names}, {"steps", std::move(steps)}};
  json weak = json::array();
  for (std::size_t i = 0; i < t.steps.size(); ++i)
    if (!t.steps[i].weak.empty()) weak.push_back(json::array({i, t.steps[i].weak}));
  if (!weak.empty()) a["weak_memory"] = std::move(weak);
  json notes = json::array();
  for (std::size_t i = 0; i < t.steps.size(); ++i)
    if (!t.steps[i].note.empty()) notes.push_back(json::array({i, t.steps[i].note}));
  if (!notes.empty()) a["notes"] = std::move(notes);
  if (t.preemptions) a["preemptions"] = *t.preemptions;
  return a;
}

json trace_object(const timeline& t) {
  json j = json::parse(to_json(t.trace));
  if (t.annotated) j["annotations"] = annotations_json(t);
  return j;
}

timeline timeline_from_object(std::string label, const json& j) {
  timeline t;
  t.label = std::move(label);
  t.trace = trace_from_json(j.dump());
  fill_operations(t);
  const auto a = j.find("annotations");
  if (a == j.end()) return t;
  const auto bad = [](std::string_view what) {
    return trace_error(fmt::format("malformed trace: \"annotations\" {}", what));
  };
  if (!a->is_object() || !a->contains("operations") || !a->contains("steps")) throw bad("lacks operations or steps");
  const json& names = (*a)["operations"];
  const json& steps = (*a)["steps"];
  if (!names.is_array() || !steps.is_array()) throw bad("has operations or steps that are not arrays");
  if (steps.size() != t.trace.steps.size())
    throw bad(fmt::format("has {} steps for a trace of {}", steps.size(), t.trace.steps.size()));
  t.operation_names.clear();
  for (const json& n : names) {
    if (!n.is_string()) throw bad("has an operation name that is not a string");
    t.operation_names.push_back(n.get<std::string>());
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    if (!s.is_array() || (s.size() != 5 && s.size() != 7 && s.size() != 9) || !s[0].is_number_unsigned() ||
        !s[1].is_string() || !s[2].is_string() || !s[3].is_number_unsigned() || !s[4].is_boolean() ||
        (s.size() >= 7 && ((!s[5].is_null() && !s[5].is_number_unsigned() && !s[5].is_array()) ||
                           (!s[6].is_null() && !s[6].is_string()))) ||
        (s.size() == 9 && (!s[7].is_string() || !s[8].is_boolean())))
      throw bad(fmt::format("step {} is not [operation, object, file, line, preemption] (then, optionally, woke, seen, "
                            "and for a compare-exchange expected, succeeded)",
                            i));
    timeline_step& step = t.steps[i];
    step.operation = s[0].get<operation_id>();
    if (step.operation > t.operation_names.size())
      throw bad(fmt::format("step {} names operation {}, which it does not list", i, step.operation));
    step.object = s[1].get<std::string>();
    step.file = s[2].get<std::string>();
    step.line = s[3].get<std::uint32_t>();
    step.preemption = s[4].get<bool>();
    if (s.size() >= 7) {
      if (s[5].is_number_unsigned()) {
        const operation_id woke = s[5].get<operation_id>();
        step.woke = woke == 0 ? step_record::woke_nobody : woke;
      } else if (s[5].is_array()) {
        for (const json& w : s[5]) {
          if (!w.is_number_unsigned() || w.get<operation_id>() == 0)
            throw bad(fmt::format("step {} names a woken operation that is not an operation number", i));
          step.woken.push_back(w.get<operation_id>());
        }
        step.woke = step.woken.empty() ? step_record::woke_nobody : step_record::woke_several;
      }
      if (s[6].is_string()) step.seen = s[6].get<std::string>();
    }
    if (s.size() == 9) {
      step.expected = s[7].get<std::string>();
      step.succeeded = s[8].get<bool>();
    }
  }
  if (const auto w = a->find("weak_memory"); w != a->end()) {
    if (!w->is_array()) throw bad("has \"weak_memory\" that is not an array");
    for (const json& n : *w) {
      if (!n.is_array() || n.size() != 2 || !n[0].is_number_unsigned() || !n[1].is_string() ||
          n[0].get<std::size_t>() >= t.steps.size())
        throw bad("has a \"weak_memory\" entry that is not [step, text] for a step of the trace");
      t.steps[n[0].get<std::size_t>()].weak = n[1].get<std::string>();
    }
  }
  if (const auto w = a->find("notes"); w != a->end()) {
    if (!w->is_array()) throw bad("has \"notes\" that is not an array");
    for (const json& n : *w) {
      if (!n.is_array() || n.size() != 2 || !n[0].is_number_unsigned() || !n[1].is_string() ||
          n[0].get<std::size_t>() >= t.steps.size())
        throw bad("has a \"notes\" entry that is not [step, text] for a step of the trace");
      t.steps[n[0].get<std::size_t>()].note = n[1].get<std::string>();
    }
  }
  if (const auto p = a->find("preemptions"); p != a->end()) {
    if (!p->is_number_unsigned()) throw bad("has \"preemptions\" that is not a count");
    t.preemptions = p->get<std::uint64_t>();
  }
  t.annotated = true;
  return t;
}

}  // namespace

std::string timeline::operation_title(operation_id id) const {
  const std::string name = id >= 1 && id <= operation_names.size() ? operation_names[id - 1] : "";
  return name.empty() ? fmt::format("op {}", id) : fmt::format("op {} ({})", id, name);
}

namespace {
// "saw 5"; a compare-exchange: "saw 5, expected 4 (failed)". Empty when no
// value was noted.
std::string seen_text(const timeline_step& s) {
  if (s.seen.empty()) return {};
  if (s.expected.empty()) return "saw " + s.seen;
  return fmt::format("saw {}, expected {} ({})", s.seen, s.expected, s.succeeded ? "succeeded" : "failed");
}

// "wakes op 3 (cons1)", "wakes op 2 (cons1), op 3 (cons2)" (a notify_all),
// "wakes nobody (no waiter)"; empty when the step is no notify.
std::string woke_text(const timeline& t, const timeline_step& s) {
  if (s.woke == 0) return {};
  if (s.woke == step_record::woke_nobody) return "wakes nobody (no waiter)";
  if (s.woke != step_record::woke_several) return "wakes " + t.operation_title(s.woke);
  std::string text = "wakes ";
  for (std::size_t i = 0; i < s.woken.size(); ++i) text += (i == 0 ? "" : ", ") + t.operation_title(s.woken[i]);
  return text;
}

// What a step's notes add: the value seen, the operation a notify woke.
std::string notes_text(const timeline& t, const timeline_step& s) {
  std::string text;
  if (!s.seen.empty()) text += ": " + seen_text(s);
  if (s.woke != 0) text += ": " + woke_text(t, s);
  return text;
}

// What a data choice decided, said as part of its operation's row; empty
// when it took the default (no spurious failure) or its effect is already
// said (the woken operation).
std::string choice_effect(const timeline_step& s, bool woke_known) {
  const std::uint64_t v = s.step.value;
  switch (s.step.point) {
    case point_kind::choose: return fmt::format("chooses {}", v);
    // Taken before the wait's own steps (release, block): the row may be
    // another point's, so the choice names its object.
    case point_kind::wait: return v != 0 ? fmt::format("spurious wake-up from {}", s.object) : "";
    case point_kind::rmw: return v != 0 ? "fails spuriously" : "";
    case point_kind::signal: return woke_known ? "" : fmt::format("wakes waiter {}", v);
    // rc11: which store a load read, where a store went. The newest (0) needs
    // no words; an older one has its weak-memory note (row_text) when known.
    case point_kind::read:
    case point_kind::write: return v != 0 && s.weak.empty() ? fmt::format("{} choice {}", to_string(s.step.point), v) : "";
    default: return fmt::format("{} choice {}", to_string(s.step.point), v);
  }
}
}  // namespace

std::string timeline::step_text(std::size_t index) const {
  const timeline_step& s = steps[index];
  const std::string object = !s.object.empty() ? s.object : s.step.object != 0 ? fmt::format("#{}", s.step.object) : "";
  switch (s.step.kind) {
    case step_kind::schedule:
      if (s.step.point == point_kind::start || object.empty()) return std::string(to_string(s.step.point)) + notes_text(*this, s);
      return fmt::format("{} {}{}", to_string(s.step.point), object, notes_text(*this, s));
    case step_kind::choose_bool:
    case step_kind::choose_int:
      if (s.step.point == point_kind::choose) return fmt::format("choose {}", s.step.value);
      return fmt::format("{} {} choice {}{}", to_string(s.step.point), object, s.step.value, notes_text(*this, s));
  }
  return {};
}

std::vector<timeline_row> timeline::rows() const {
  std::vector<timeline_row> out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const bool choice = steps[i].step.kind != step_kind::schedule;
    // A choice folds into the row of its operation's step just before it:
    // nothing else ran in between.
    if (choice && !out.empty() && steps[out.back().last].operation == steps[i].operation &&
        steps[out.back().first].step.kind == step_kind::schedule && steps[i].step.point != point_kind::choose) {
      out.back().last = i;
      continue;
    }
    out.push_back({i, i});
  }
  return out;
}

std::string timeline::row_text(const timeline_row& row) const {
  std::string text = step_text(row.first);
  const auto say = [&](const std::string& what) {
    if (what.empty() || text.find(what) != std::string::npos) return;
    text += (text.find(": ") == std::string::npos ? ": " : ", ") + what;
  };
  // What the folded choices add: the value seen (a compare-exchange notes it
  // on its choice), the operation a notify woke (noted on the choice among
  // several waiters), then what the choice decided.
  bool woke_known = steps[row.first].woke != 0;
  for (std::size_t i = row.first + 1; i <= row.last; ++i) {
    const timeline_step& s = steps[i];
    // A stale read's note continues its "saw 0": "saw 0 (relaxed) from ...".
    const std::string seen = seen_text(s);
    say(s.weak.empty() ? seen : seen.empty() ? s.weak : seen + " " + s.weak);
    say(woke_text(*this, s));
    woke_known = woke_known || s.woke != 0;
    say(choice_effect(s, woke_known));
  }
  // What a runtime said about the row's steps, last: "door(2) goes closed -> open on open_request".
  for (std::size_t i = row.first; i <= row.last; ++i) say(steps[i].note);
  return text;
}

std::string timeline::step_where(std::size_t index) const {
  const timeline_step& s = steps[index];
  return s.line != 0 ? fmt::format("{}:{}", basename(s.file), s.line) : std::string{};
}

recorded_annotations annotations_of(const iteration_outcome& o) {
  recorded_annotations a;
  a.steps = o.steps;
  a.operation_names = o.operation_names;
  a.objects.reserve(o.objects.size());
  for (const object_state& s : o.objects) a.objects.emplace_back(s.kind, s.owner);
  if (o.found) {
    a.found_operation = o.found->operation;
    a.found_operation_name = o.found->operation_name;
  }
  a.weak_notes = o.weak_notes;
  a.woken = o.woken;
  a.notes = o.notes;
  return a;
}

timeline make_timeline(std::string label, const trace& t, const iteration_outcome& o,
                       const std::vector<std::uint64_t>* preemption_steps) {
  return make_timeline(std::move(label), t, annotations_of(o), preemption_steps);
}

timeline make_timeline(std::string label, const trace& t, const recorded_annotations& o,
                       const std::vector<std::uint64_t>* preemption_steps) {
  timeline tl;
  tl.label = std::move(label);
  tl.trace = t;
  tl.operation_names = o.operation_names;
  tl.annotated = true;
  tl.steps.resize(t.steps.size());
  // Steps the outcome does not cover (a run in another process that brought
  // back only its schedule) are attributed from the trace, as fill_operations does.
  operation_id running = 0;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    timeline_step& s = tl.steps[i];
    s.step = t.steps[i];
    if (s.step.kind == step_kind::schedule) running = static_cast<operation_id>(s.step.value);
    s.operation = running;
    if (running > tl.operation_names.size()) tl.operation_names.resize(running);
    if (i < o.steps.size()) {
      s.operation = o.steps[i].operation;
      if (o.steps[i].where.line() != 0) {
        s.file = o.steps[i].where.file_name();
        s.line = o.steps[i].where.line();
      } else if (o.steps[i].pc != 0 && symbolize_pc != nullptr) {
        const source_position p = symbolize_pc(o.steps[i].pc);
        s.file = p.file;
        s.line = p.line;
      }
      s.woke = o.steps[i].woke;
      const step_record& r = o.steps[i];
      s.seen = value_text(r.value_seen, r.seen_kind);
      if (r.compare_exchange != step_record::exchange::none) {
        s.expected = value_text(r.value_expected, r.seen_kind);
        s.succeeded = r.compare_exchange == step_record::exchange::succeeded;
      }
    }
    s.object = object_text(o, s.step.object);
  }
  for (const auto& [step, text] : o.notes)
    if (step < tl.steps.size()) tl.steps[step].note += (tl.steps[step].note.empty() ? "" : "; ") + text;
  for (const auto& [step, op] : o.woken)
    if (step < tl.steps.size() && tl.steps[step].woke == step_record::woke_several) tl.steps[step].woken.push_back(op);
  // Such a run still knows the name of the operation its bug is in.
  if (o.found_operation >= 1 && o.found_operation <= tl.operation_names.size() &&
      tl.operation_names[o.found_operation - 1].empty())
    tl.operation_names[o.found_operation - 1] = o.found_operation_name;
  // rc11's notes in words, once the operations' names are known. A stale
  // read's newest store prints as the value the read itself saw is typed.
  for (const weak_note& n : o.weak_notes) {
    if (n.step >= tl.steps.size() || n.step >= o.steps.size()) continue;
    const value_kind kind = n.placed ? value_kind::none : o.steps[n.step].seen_kind;
    tl.steps[n.step].weak = weak_note_text(n, value_text(weak_note_value_bits(n, kind), kind),
                                           [&](operation_id id) { return tl.operation_title(id); });
  }
  if (preemption_steps != nullptr) {
    tl.preemptions = preemption_steps->size();
    for (std::uint64_t i : *preemption_steps)
      if (i < tl.steps.size()) tl.steps[i].preemption = true;
  }
  return tl;
}

timeline make_timeline(std::string label, const trace& t) {
  timeline tl;
  tl.label = std::move(label);
  tl.trace = t;
  fill_operations(tl);
  return tl;
}

std::string timeline_json(const timeline& saved, const timeline* original) {
  json j = trace_object(saved);
  if (original != nullptr) j["original"] = trace_object(*original);
  return j.dump(1) + "\n";
}

std::vector<timeline> timelines_from_json(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) (void)trace_from_json(text);  // throws the trace reader's message
  std::vector<timeline> all;
  const auto original = j.find("original");
  if (original != j.end()) all.push_back(timeline_from_object("original", *original));
  all.push_back(timeline_from_object(original != j.end() ? "minimized" : "original", j));
  return all;
}

std::vector<timeline> load_timelines(const std::string& path) {
  const trace plain = load_trace(path);  // names every problem of the trace itself
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (text.find_first_not_of(" \t\r\n") == std::string::npos || text[text.find_first_not_of(" \t\r\n")] != '{')
    return {make_timeline("original", plain)};  // a compact trace
  try {
    return timelines_from_json(text);
  } catch (const trace_error& e) {
    throw trace_error(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace heddle::detail
