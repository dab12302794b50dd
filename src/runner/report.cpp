#include "runner/report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace heddle::detail {
namespace {

constexpr std::size_t shown_steps = 120;  // the end of a long trace is what explains a bug
constexpr std::size_t max_column = 44;

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" \t'\"\\$`*?[]{}()<>|;&!#~") == std::string::npos && !s.empty()) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string shell_word(const std::string& text) { return shell_quote(text); }

std::string replay_command(const report_context& ctx) {
  if (!ctx.replay.empty()) return ctx.replay;
  if (ctx.trace_file.empty()) return {};
  if (!ctx.program.empty()) return "heddle replay " + shell_quote(ctx.trace_file);
  return fmt::format("HEDDLE_REPLAY={} <this program>", shell_quote(ctx.trace_file));
}

std::string format_report(const bug& b, const trace& t, const iteration_outcome& o,
                          const report_context& ctx) {
  return format_report(b, make_timeline("original", t, o), nullptr, ctx);
}

std::string format_interleaving(const timeline& t) {
  std::string r;
  const std::size_t ops = t.operation_count();
  const std::size_t first = t.steps.size() > shown_steps ? t.steps.size() - shown_steps : 0;
  std::vector<std::size_t> width(ops + 1, 0);
  for (std::size_t c = 1; c <= ops; ++c) width[c] = t.operation_title(static_cast<operation_id>(c)).size();
  std::vector<std::string> cells(t.steps.size());
  for (std::size_t i = first; i < t.steps.size(); ++i) {
    cells[i] = t.step_text(i);
    if (const std::string where = t.step_where(i); !where.empty()) cells[i] += " (" + where + ")";
    if (cells[i].size() > max_column) cells[i] = cells[i].substr(0, max_column - 1) + "~";
    const operation_id who = t.steps[i].operation;
    if (who >= 1 && who <= ops) width[who] = std::max(width[who], cells[i].size());
  }
  std::string header = fmt::format("  {:>6}", "step");
  for (std::size_t c = 1; c <= ops; ++c)
    header += fmt::format("  {:<{}}", t.operation_title(static_cast<operation_id>(c)), width[c]);
  while (!header.empty() && header.back() == ' ') header.pop_back();
  r += header + "\n";
  if (first > 0) r += fmt::format("  {:>6}  ... {} earlier steps not shown\n", "", first);
  for (std::size_t i = first; i < t.steps.size(); ++i) {
    const operation_id who = t.steps[i].operation;
    std::string row = fmt::format("  {:>5}{}", i, t.steps[i].preemption ? '*' : ' ');
    for (std::size_t c = 1; c <= ops; ++c) row += fmt::format("  {:<{}}", c == who ? cells[i] : "", width[c]);
    while (!row.empty() && row.back() == ' ') row.pop_back();
    r += row + "\n";
  }
  return r;
}

std::string format_report(const bug& b, const timeline& original, const timeline* minimized,
                          const report_context& ctx) {
  const trace& t = original.trace;
  const timeline& shown = minimized != nullptr ? *minimized : original;
  std::string r;
  if (ctx.replaying)
    r += fmt::format("heddle: replayed {}: bug reproduced\n\n", ctx.test);
  else
    r += fmt::format("heddle: bug found in {} (iteration {} of the run, strategy {}, seed {})\n\n", ctx.test,
                     ctx.iteration + 1, t.header.strategy, t.header.seed);
  r += fmt::format("  {}: {}\n", to_string(b.kind), b.message);
  r += b.operation != 0 ? fmt::format("    in {}", original.operation_title(b.operation))
                        : std::string("    outside any operation (in the scheduler, or a program's exit path after main returned)");
  if (b.where.known()) r += fmt::format(" at {}:{}", b.where.file, b.where.line);
  r += fmt::format("\n    after {} steps\n\n", b.step);

  if (minimized != nullptr) {
    r += fmt::format("  minimized: {} -> {} preemptions, {} -> {} steps\n\n",
                     original.preemptions ? fmt::format("{}", *original.preemptions) : std::string("?"),
                     minimized->preemptions ? fmt::format("{}", *minimized->preemptions) : std::string("?"),
                     original.steps.size(), minimized->steps.size());
  }
  // The interleaving: one row per step, one column per operation.
  r += fmt::format("  {}interleaving (one column per operation; each row is one decision{}):\n",
                   minimized != nullptr ? "minimized " : "",
                   shown.preemptions ? "; * marks a preemption" : "");
  r += format_interleaving(shown);
  r += "\n";
  const std::string compact = to_compact(shown.trace);
  r += fmt::format("  trace:  {}\n", compact.size() <= 2000 ? compact : compact.substr(0, 60) + "... (see the file)");
  if (!ctx.trace_file.empty()) {
    r += fmt::format("  file:   {}{}\n", ctx.trace_file,
                     minimized != nullptr ? " (the minimized trace; the original is in it too)" : "");
    if (!ctx.html_file.empty()) r += fmt::format("  html:   {}\n", ctx.html_file);
    r += fmt::format("  replay: {}\n", replay_command(ctx));
    if (!ctx.debug.empty())
      r += fmt::format("  debug:  {}\n", ctx.debug);
    else if (!ctx.program.empty())
      r += fmt::format("  debug:  gdb --args {} --gtest_filter={} --heddle_replay={}\n", shell_quote(ctx.program),
                       shell_quote(ctx.test), shell_quote(ctx.trace_file));
  }
  return r;
}

}  // namespace heddle::detail
