#include "runner/report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace heddle::detail {
namespace {

constexpr std::size_t shown_rows = 120;  // the end of a long trace is what explains a bug

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" \t'\"\\$`*?[]{}()<>|;&!#~") == std::string::npos && !s.empty()) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string shell_word(const std::string& text) { return shell_quote(text); }

std::string spurious_note(const std::vector<trace_step>& steps) {
  std::string wakeups, failures;
  std::size_t count = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const trace_step& s = steps[i];
    if (s.kind != step_kind::choose_bool || s.value != 1) continue;
    if (s.point == point_kind::wait) wakeups += fmt::format("{}{}", wakeups.empty() ? "" : ", ", i);
    else if (s.point == point_kind::rmw) failures += fmt::format("{}{}", failures.empty() ? "" : ", ", i);
    else continue;
    ++count;
  }
  if (count == 0) return {};
  const auto part = [](const std::string& at, std::string_view what) {
    if (at.empty()) return std::string{};
    const bool many = at.find(',') != std::string::npos;
    return fmt::format("{}{} at step{} {}", many ? "" : "a ", what, many ? "s" : "", at);
  };
  const std::string w = part(wakeups, wakeups.find(',') != std::string::npos ? "spurious wake-ups" : "spurious wake-up");
  const std::string f = part(failures, failures.find(',') != std::string::npos ? "spurious compare_exchange_weak failures"
                                                                               : "spurious compare_exchange_weak failure");
  return "after " + w + (w.empty() || f.empty() ? "" : " and ") + f;
}

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
  const std::vector<timeline_row> rows = t.rows();
  const std::size_t first = rows.size() > shown_rows ? rows.size() - shown_rows : 0;
  std::vector<std::size_t> width(ops + 1, 0);
  for (std::size_t c = 1; c <= ops; ++c) width[c] = t.operation_title(static_cast<operation_id>(c)).size();
  // A cell is never cut: its source line is what a reader looks for.
  std::vector<std::string> cells(rows.size());
  for (std::size_t i = first; i < rows.size(); ++i) {
    cells[i] = t.row_text(rows[i]);
    if (const std::string where = t.step_where(rows[i].first); !where.empty()) cells[i] += " (" + where + ")";
    const operation_id who = t.steps[rows[i].first].operation;
    if (who >= 1 && who <= ops) width[who] = std::max(width[who], cells[i].size());
  }
  std::string header = fmt::format("  {:>6}", "step");
  for (std::size_t c = 1; c <= ops; ++c)
    header += fmt::format("  {:<{}}", t.operation_title(static_cast<operation_id>(c)), width[c]);
  while (!header.empty() && header.back() == ' ') header.pop_back();
  r += header + "\n";
  if (first > 0) r += fmt::format("  {:>6}  ... {} earlier steps not shown\n", "", rows[first].first);
  for (std::size_t i = first; i < rows.size(); ++i) {
    const timeline_step& s = t.steps[rows[i].first];
    std::string row = fmt::format("  {:>5}{}", rows[i].first, s.preemption ? '*' : ' ');
    for (std::size_t c = 1; c <= ops; ++c) row += fmt::format("  {:<{}}", c == s.operation ? cells[i] : "", width[c]);
    while (!row.empty() && row.back() == ' ') row.pop_back();
    r += row + "\n";
  }
  return r;
}

std::string format_report(const bug& b, const timeline& original, const timeline* minimized,
                          const report_context& ctx) {
  const trace& t = original.trace;
  const timeline& shown = minimized != nullptr ? *minimized : original;
  // The bug of the trace shown: a minimized trace ends in the same bug, but
  // its message (who waits, after how many steps) is its own.
  const bug& told = shown.trace.found ? *shown.trace.found : b;
  std::string r;
  // Iterations are numbered from 0 everywhere (docs/reports.md): the number is
  // the trace header's index, the one the iteration's seed derives from.
  if (ctx.replaying)
    r += fmt::format("heddle: replayed {} (iteration {}, strategy {}, seed {}): bug reproduced\n\n", ctx.test,
                     t.header.iteration, t.header.strategy, t.header.seed);
  else
    r += fmt::format("heddle: bug found in {} (iteration {}, strategy {}, seed {})\n\n", ctx.test, ctx.iteration,
                     t.header.strategy, t.header.seed);
  r += fmt::format("  {}: {}\n", to_string(told.kind), told.message);
  r += told.operation != 0 ? fmt::format("    in {}", shown.operation_title(told.operation))
                           : std::string("    outside any operation (in the scheduler, or a program's exit path after main returned)");
  if (told.where.known()) r += fmt::format(" at {}:{}", told.where.file, told.where.line);
  r += fmt::format("\n    after {} steps\n", told.step);
  if (const std::string note = spurious_note(shown.trace.steps); !note.empty())
    r += fmt::format("    {} (POSIX allows them; --spurious-wakeups false and --spurious-cas-failures false turn "
                     "them off)\n",
                     note);
  r += "\n";

  if (minimized != nullptr) {
    r += fmt::format("  minimized: {} -> {} preemptions, {} -> {} steps\n\n",
                     original.preemptions ? fmt::format("{}", *original.preemptions) : std::string("?"),
                     minimized->preemptions ? fmt::format("{}", *minimized->preemptions) : std::string("?"),
                     original.steps.size(), minimized->steps.size());
  }
  // The interleaving: one row per step, one column per operation.
  r += fmt::format("  {}interleaving (one column per operation; each row is one step of an operation, with the "
                   "data choices it took folded in{}):\n",
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
