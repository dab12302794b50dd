// The HTML report (see html_report.hpp). The page is built as a string: a
// header with the test and the toggle, then one <section> per trace with its
// lanes (operation labels in an HTML column that stays put, the steps in an
// SVG that scrolls), the detail line, a legend and the bug.
#include "runner/html_report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "runner/html_assets.hpp"

namespace heddle::detail {
namespace {

constexpr int lane_height = 30;
constexpr int axis_height = 22;
constexpr int step_height = 16;

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// Colour families of point kinds: enough to tell locking from memory from
// waiting at a glance, few enough to stay calm.
std::string_view family(const trace_step& s) {
  if (s.kind != step_kind::schedule) return "choose";
  switch (s.point) {
    case point_kind::start:
    case point_kind::finish:
    case point_kind::join: return "lifecycle";
    case point_kind::acquire:
    case point_kind::release:
    case point_kind::acquire_shared:
    case point_kind::release_shared: return "lock";
    case point_kind::wait:
    case point_kind::signal: return "wait";
    case point_kind::read: return "read";
    case point_kind::write: return "write";
    case point_kind::rmw: return "rmw";
    case point_kind::fence: return "fence";
    case point_kind::yield:
    case point_kind::sleep: return "yield";
    case point_kind::choose: return "choose";
    case point_kind::send:
    case point_kind::receive: return "message";
    case point_kind::user: return "user";
  }
  return "user";
}

// Short traces get columns wide enough to say in the lane what each step
// did; long ones shrink to coloured ticks (the detail line and the tooltip
// still say it).
constexpr int labelled_width = 100;
int step_width(std::size_t rows) {
  if (rows <= 150) return labelled_width;
  if (rows <= 400) return 8;
  if (rows <= 2000) return 4;
  return 2;
}

std::string counts(const timeline& t) {
  std::string text = fmt::format("{} steps", t.steps.size());
  if (t.preemptions) text += fmt::format(" · {} preemption{}", *t.preemptions, *t.preemptions == 1 ? "" : "s");
  return text;
}

// `text` cut to `n` characters with an ellipsis (labels only: the tooltip and
// the detail line show it whole).
std::string clip(const std::string& text, std::size_t n) {
  if (text.size() <= n) return text;
  return text.substr(0, n - 1) + "\u2026";
}

// A row's two label lines: what it did ("signal cv #7"), and what came of it
// ("wakes op 3 (cons1)", "saw 5") or, without a note, its source line.
std::pair<std::string, std::string> row_label(const timeline& t, const timeline_row& row) {
  const std::string text = t.row_text(row);
  const auto colon = text.find(": ");
  std::string action = text.substr(0, colon);
  for (const auto& [long_name, short_name] : {std::pair{"condition_variable", "cv"}, {"shared_mutex", "shmutex"}})
    if (const auto at = action.find(long_name); at != std::string::npos)
      action.replace(at, std::string_view(long_name).size(), short_name);
  std::string note = colon == std::string::npos ? t.step_where(row.first) : text.substr(colon + 2);
  return {action, note};
}

std::string lanes_svg(const timeline& t) {
  const std::size_t ops = std::max<std::size_t>(t.operation_count(), 1);
  const std::vector<timeline_row> rows = t.rows();
  const int w = step_width(rows.size());
  const bool labelled = w == labelled_width;
  const int lane_h = labelled ? 40 : lane_height;
  const int step_h = labelled ? 32 : step_height;
  const int width = static_cast<int>(rows.size() + 2) * w + 8;
  const int height = axis_height + static_cast<int>(ops) * lane_h;
  const auto lane_y = [&](operation_id id) { return axis_height + static_cast<int>(id - 1) * lane_h; };
  std::string svg = fmt::format(
      "<svg class=\"lanes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"one lane per operation, one column per step\">\n",
      width, height);

  // The axis: step numbers, at every column when labelled, else every 10
  // columns (50 or 500 for long traces).
  const std::size_t tick = labelled ? 1 : rows.size() <= 100 ? 10 : rows.size() <= 1000 ? 50 : 500;
  svg += "<g class=\"axis\">";
  for (std::size_t i = 0; i < rows.size(); i += tick) {
    const int x = 4 + static_cast<int>(i) * w;
    svg += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"14\" y2=\"{1}\"/><text x=\"{0}\" y=\"11\">{2}</text>", x,
                       height, rows[i].first);
  }
  svg += "</g>\n";

  // Lanes, each with its steps (a row: a step and the choices folded into it).
  for (operation_id id = 1; id <= ops; ++id) {
    svg += fmt::format("<g class=\"lane\" data-operation=\"{}\" data-title=\"{}\">", id,
                       escape(t.operation_title(id)));
    svg += fmt::format("<rect class=\"lane-bg\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\"/>", lane_y(id), width,
                       lane_h);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const std::size_t i = rows[r].first;
      const timeline_step& s = t.steps[i];
      if (s.operation != id) continue;
      const int x = 4 + static_cast<int>(r) * w;
      const int y = lane_y(id) + (lane_h - step_h) / 2;
      const std::string text = t.row_text(rows[r]);
      const std::string where = t.step_where(i);
      svg += fmt::format(
          "<rect class=\"step k-{}{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"2\" data-step=\"{}\" "
          "data-last-step=\"{}\" data-kind=\"{}\" data-object=\"{}\" data-where=\"{}\" data-operation=\"{}\" "
          "data-operation-title=\"{}\" data-preemption=\"{}\" data-did=\"{}\"><title>step {}: {}{}{}</title></rect>",
          family(s.step), s.preemption ? " preempting" : "", x, y, std::max(w - 2, 1), step_h, i, rows[r].last,
          escape(s.step.kind == step_kind::schedule ? to_string(s.step.point) : std::string_view("choose")),
          escape(s.object), escape(s.file.empty() ? where : fmt::format("{}:{}", s.file, s.line)), id,
          escape(t.operation_title(id)), s.preemption ? "true" : "false", escape(text), i, escape(text),
          where.empty() ? "" : " at " + escape(where), s.preemption ? " (preemption)" : "");
      if (labelled) {
        const auto [action, note] = row_label(t, rows[r]);
        svg += fmt::format("<text class=\"step-label\" x=\"{}\" y=\"{}\">{}</text>", x + 4, y + 13,
                           escape(clip(action, 16)));
        if (!note.empty())
          svg += fmt::format("<text class=\"step-label note\" x=\"{}\" y=\"{}\">{}</text>", x + 4, y + 26,
                             escape(clip(note, 16)));
      }
      if (s.preemption)
        svg += fmt::format("<path class=\"preempt\" d=\"M{} {}l{} 0l{} 5z\"><title>preemption</title></path>",
                           x - 1, y - 6, std::min(w, 16) + 1, -(std::min(w, 16) + 1) / 2);
    }
    svg += "</g>\n";
  }

  // Control flow: a thin line from each step to the next one's lane.
  std::string path;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const operation_id id = t.steps[rows[r].first].operation;
    if (id == 0) continue;
    const int x = 4 + static_cast<int>(r) * w + w / 2;
    const int y = lane_y(id) + (labelled ? lane_h - 3 : lane_h / 2);
    path += fmt::format("{}{} {}", path.empty() ? "M" : "L", x, y);
  }
  if (!path.empty()) svg += fmt::format("<path class=\"flow\" d=\"{}\"/>\n", path);

  // The bug, after the last step, in the lane of the operation it hit.
  if (t.trace.found) {
    const bug& b = *t.trace.found;
    const operation_id id = b.operation >= 1 && b.operation <= ops ? b.operation : 1;
    const int x = 4 + static_cast<int>(rows.size()) * w + std::min(w, 16) / 2;
    const int y = lane_y(id) + lane_h / 2;
    svg += fmt::format(
        "<path class=\"bug-marker\" d=\"M{} {}l6 6l-6 6l-6 -6z\"><title>{}: {}</title></path>\n", x, y - 6,
        escape(to_string(b.kind)), escape(b.message));
  }
  svg += "</svg>";
  return svg;
}

std::string section(const timeline& t, bool hidden) {
  std::string html = fmt::format("<section class=\"trace\" data-label=\"{}\"{}>\n", escape(t.label),
                                 hidden ? " hidden" : "");
  html += fmt::format("<p class=\"summary\">{} trace: {} · {} operation{}{}</p>\n", escape(t.label), counts(t),
                      t.operation_count(), t.operation_count() == 1 ? "" : "s",
                      t.annotated ? "" : " · no source locations (the trace file carries no annotations)");
  html += "<div class=\"grid\"><div class=\"labels\">";
  for (operation_id id = 1; id <= std::max<std::size_t>(t.operation_count(), 1); ++id)
    html += fmt::format("<div class=\"label\">{}</div>", escape(t.operation_title(id)));
  html += "</div><div class=\"scroll\">" + lanes_svg(t) + "</div></div>\n";
  html += "<div class=\"detail\">Point at a step to see its index, point kind, object and source location.</div>\n";
  html += "<div class=\"legend\">";
  for (const auto& [name, colour] : {std::pair{"start / finish / join", "#9fb3c8"}, {"lock", "#4c78a8"},
                                     {"wait / signal", "#9c6ade"}, {"read", "#54a24b"}, {"write", "#f58518"},
                                     {"read-modify-write", "#d9a404"}, {"yield / sleep", "#cbd2d9"},
                                     {"data choice", "#2f9e9e"}, {"preemption", "#b42318"}})
    html += fmt::format("<span style=\"--c:{}\">{}</span>", colour, name);
  html += "</div>\n";
  if (t.trace.found) {
    const bug& b = *t.trace.found;
    html += fmt::format("<div class=\"bug\" data-kind=\"{}\"><span class=\"kind\">{}</span>: "
                        "<span class=\"message\">{}</span>\n<div class=\"where\">{}",
                        escape(to_string(b.kind)), escape(to_string(b.kind)), escape(b.message),
                        escape(b.operation != 0 ? "in " + t.operation_title(b.operation)
                                               : std::string("outside any operation (in the scheduler, or a program's exit "
                                                             "path after main returned)")));
    if (b.where.known()) html += fmt::format(" at <code>{}:{}</code>", escape(b.where.file), b.where.line);
    html += fmt::format(" after {} steps</div></div>\n", b.step);
  } else {
    html += "<div class=\"bug none\">This trace records no bug.</div>\n";
  }
  html += "</section>\n";
  return html;
}

}  // namespace

std::string html_report(const std::vector<timeline>& timelines) {
  const trace_header& h = timelines.front().trace.header;
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += fmt::format("<title>heddle: {}</title>\n<style>{}</style>\n</head>\n<body>\n", escape(h.test),
                      html_assets::style);
  html += fmt::format("<header><h1>{}</h1>\n<div class=\"meta\">strategy <code>{}</code> · seed <code>{}</code> · "
                      "iteration <code>{}</code> · heddle {}{}</div>\n",
                      escape(h.test), escape(h.strategy), h.seed, h.iteration, escape(h.heddle_version),
                      h.program.empty() ? "" : fmt::format(" · <code>{}</code>", escape(h.program)));
  if (timelines.size() > 1) {
    html += "<nav class=\"toggle\" aria-label=\"trace\">";
    for (const timeline& t : timelines)
      html += fmt::format("<button type=\"button\" data-show=\"{0}\" aria-pressed=\"false\">{0}: {1}</button>",
                          escape(t.label), escape(counts(t)));
    html += "</nav>\n";
  }
  html += "</header>\n<main>\n";
  // Without the script, the first trace shows; the script then shows the last
  // (the minimized one), which is the easier to read.
  for (std::size_t i = 0; i < timelines.size(); ++i) html += section(timelines[i], i != 0);
  html += fmt::format("</main>\n<script>{}</script>\n</body>\n</html>\n", html_assets::script);
  return html;
}

std::string write_html_report(const std::string& trace_file, const std::vector<timeline>& timelines) {
  std::filesystem::path path(trace_file);
  path.replace_extension(".html");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << html_report(timelines);
  return out.flush() ? path.string() : std::string{};
}

}  // namespace heddle::detail
