// The Chrome trace-event export (see perfetto.hpp). Format reference: "Trace
// Event Format" (Google, the document chrome://tracing and Perfetto follow).
#include "runner/perfetto.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace heddle::detail {

std::string chrome_trace_json(const std::vector<timeline>& timelines) {
  using nlohmann::json;
  json events = json::array();
  int pid = 0;
  for (const timeline& t : timelines) {
    ++pid;
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                      {"args", {{"name", fmt::format("{} ({} trace)", t.trace.header.test, t.label)}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                      {"args", {{"sort_index", pid}}}});
    for (operation_id id = 1; id <= t.operation_count(); ++id) {
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", id},
                        {"args", {{"name", t.operation_title(id)}}}});
      events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", id},
                        {"args", {{"sort_index", id}}}});
    }
    for (std::size_t i = 0; i < t.steps.size(); ++i) {
      const timeline_step& s = t.steps[i];
      json args = {{"step", i}, {"point", to_string(s.step.point)}, {"preemption", s.preemption}};
      if (!s.object.empty()) args["object"] = s.object;
      if (s.step.kind != step_kind::schedule) args["value"] = s.step.value;
      if (s.line != 0) args["source"] = fmt::format("{}:{}", s.file, s.line);
      events.push_back({{"name", t.step_text(i)},
                        {"cat", s.step.kind == step_kind::schedule ? "schedule" : "choice"},
                        {"ph", "X"},
                        {"ts", i},
                        {"dur", 1},
                        {"pid", pid},
                        {"tid", s.operation},
                        {"args", std::move(args)}});
    }
    if (t.trace.found) {
      const bug& b = *t.trace.found;
      json args = {{"kind", to_string(b.kind)}, {"message", b.message}, {"step", b.step}};
      if (b.where.known()) args["source"] = fmt::format("{}:{}", b.where.file, b.where.line);
      events.push_back({{"name", fmt::format("{}: {}", to_string(b.kind), b.message)},
                        {"cat", "bug"},
                        {"ph", "i"},
                        {"s", "p"},
                        {"ts", t.steps.size()},
                        {"pid", pid},
                        {"tid", b.operation != 0 ? b.operation : 1},
                        {"args", std::move(args)}});
    }
  }
  const json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  return doc.dump() + "\n";
}

}  // namespace heddle::detail
