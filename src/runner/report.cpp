#include "runner/report.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

namespace heddle::detail {
namespace {

constexpr std::size_t shown_steps = 120;  // the end of a long trace is what explains a bug
constexpr std::size_t max_column = 44;

std::string basename(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string object_text(const iteration_outcome& o, object_id id) {
  if (id == 0) return {};
  if (id < o.objects.size()) {
    const object_state& s = o.objects[id];
    if (s.kind == object_kind::operation) return fmt::format("op {}", s.owner);
    return fmt::format("{} #{}", to_string(s.kind), id);
  }
  return fmt::format("#{}", id);
}

std::string operation_title(const iteration_outcome& o, operation_id id) {
  const std::string name = id >= 1 && id <= o.operation_names.size() ? o.operation_names[id - 1] : "";
  return name.empty() ? fmt::format("op {}", id) : fmt::format("op {} ({})", id, name);
}

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" \t'\"\\$`*?[]{}()<>|;&!#~") == std::string::npos && !s.empty()) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string describe_step(const trace_step& s, const iteration_outcome& o, std::size_t index) {
  std::string text;
  switch (s.kind) {
    case step_kind::schedule:
      text = std::string(to_string(s.point));
      if (s.point != point_kind::start && s.object != 0) text += " " + object_text(o, s.object);
      break;
    case step_kind::choose_bool:
    case step_kind::choose_int:
      text = s.point == point_kind::choose ? fmt::format("choose {}", s.value)
                                           : fmt::format("{} {} choice {}", to_string(s.point),
                                                         object_text(o, s.object), s.value);
      break;
  }
  if (index < o.steps.size() && o.steps[index].where.line() != 0)
    text += fmt::format(" ({}:{})", basename(o.steps[index].where.file_name()), o.steps[index].where.line());
  return text;
}

std::string replay_command(const report_context& ctx) {
  if (ctx.trace_file.empty()) return {};
  if (!ctx.program.empty()) return "heddle replay " + shell_quote(ctx.trace_file);
  return fmt::format("HEDDLE_REPLAY={} <this program>", shell_quote(ctx.trace_file));
}

std::string format_report(const bug& b, const trace& t, const iteration_outcome& o,
                          const report_context& ctx) {
  std::string r;
  if (ctx.replaying)
    r += fmt::format("heddle: replayed {}: bug reproduced\n\n", ctx.test);
  else
    r += fmt::format("heddle: bug found in {} (iteration {} of the run, strategy {}, seed {})\n\n", ctx.test,
                     ctx.iteration + 1, t.header.strategy, t.header.seed);
  r += fmt::format("  {}: {}\n", to_string(b.kind), b.message);
  r += fmt::format("    in {}", b.operation != 0 ? operation_title(o, b.operation) : std::string("the scheduler"));
  if (b.where.known()) r += fmt::format(" at {}:{}", b.where.file, b.where.line);
  r += fmt::format("\n    after {} steps\n\n", b.step);

  // The interleaving: one row per step, one column per operation.
  const std::size_t ops = o.operation_names.size();
  const std::size_t first = t.steps.size() > shown_steps ? t.steps.size() - shown_steps : 0;
  std::vector<std::size_t> width(ops + 1, 0);
  for (std::size_t c = 1; c <= ops; ++c) width[c] = operation_title(o, static_cast<operation_id>(c)).size();
  std::vector<std::string> cells(t.steps.size());
  for (std::size_t i = first; i < t.steps.size(); ++i) {
    cells[i] = describe_step(t.steps[i], o, i);
    if (cells[i].size() > max_column) cells[i] = cells[i].substr(0, max_column - 1) + "~";
    const operation_id who = i < o.steps.size() ? o.steps[i].operation : 0;
    if (who >= 1 && who <= ops) width[who] = std::max(width[who], cells[i].size());
  }
  r += "  interleaving (one column per operation; each row is one decision):\n";
  std::string header = fmt::format("  {:>5}", "step");
  for (std::size_t c = 1; c <= ops; ++c)
    header += fmt::format("  {:<{}}", operation_title(o, static_cast<operation_id>(c)), width[c]);
  r += header + "\n";
  if (first > 0) r += fmt::format("  {:>5}  ... {} earlier steps not shown\n", "", first);
  for (std::size_t i = first; i < t.steps.size(); ++i) {
    const operation_id who = i < o.steps.size() ? o.steps[i].operation : 0;
    std::string row = fmt::format("  {:>5}", i);
    for (std::size_t c = 1; c <= ops; ++c) row += fmt::format("  {:<{}}", c == who ? cells[i] : "", width[c]);
    while (!row.empty() && row.back() == ' ') row.pop_back();
    r += row + "\n";
  }
  r += "\n";
  const std::string compact = to_compact(t);
  r += fmt::format("  trace:  {}\n", compact.size() <= 2000 ? compact : compact.substr(0, 60) + "... (see the file)");
  if (!ctx.trace_file.empty()) {
    r += fmt::format("  file:   {}\n", ctx.trace_file);
    r += fmt::format("  replay: {}\n", replay_command(ctx));
    if (!ctx.program.empty())
      r += fmt::format("  debug:  gdb --args {} --gtest_filter={} --heddle_replay={}\n", shell_quote(ctx.program),
                       shell_quote(ctx.test), shell_quote(ctx.trace_file));
  }
  return r;
}

}  // namespace heddle::detail
