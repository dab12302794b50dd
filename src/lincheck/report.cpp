// A failure as people read it: what failed, the scenario, the interleaving as
// one column per thread (each row a call, a result, or the point where a
// thread was switched out in the middle of a call), why no order explains the
// results, and how to run it again.
#include <algorithm>

#include <fmt/format.h>

#include "lincheck/scenario.hpp"

namespace heddle::lincheck::detail {
namespace {

// Renders rows of cells as a table with a header row; `|` separated, padded.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  std::string_view indent) {
  std::vector<std::size_t> width(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out(indent);
    for (std::size_t c = 0; c < width.size(); ++c)
      out += fmt::format("| {:<{}} ", c < cells.size() ? cells[c] : "", width[c]);
    return out + "|\n";
  };
  std::string out = line(header);
  std::string rule(indent);
  for (std::size_t c = 0; c < width.size(); ++c) rule += "|" + std::string(width[c] + 2, '-');
  out += rule + "|\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string actor_text(const operation_names& names, const actor& a) {
  if (names[a.op].empty()) return a.args ? a.args->text() : "";
  return fmt::format("{}({})", names[a.op], a.args ? a.args->text() : "");
}

std::string list(const operation_names& names, const std::vector<actor>& actors) {
  std::string out;
  for (const actor& a : actors) out += (out.empty() ? "" : ", ") + actor_text(names, a);
  return out;
}

}  // namespace

std::string scenario_text(const operation_names& names, const scenario& sc) {
  std::string out;
  if (!sc.init.empty()) out += fmt::format("  init: {}\n", list(names, sc.init));
  std::vector<std::string> header;
  std::size_t depth = 0;
  for (std::size_t t = 0; t < sc.threads.size(); ++t) {
    header.push_back(fmt::format("T{}", t + 1));
    depth = std::max(depth, sc.threads[t].size());
  }
  std::vector<std::vector<std::string>> rows(depth, std::vector<std::string>(sc.threads.size()));
  for (std::size_t t = 0; t < sc.threads.size(); ++t)
    for (std::size_t i = 0; i < sc.threads[t].size(); ++i) rows[i][t] = actor_text(names, sc.threads[t][i]);
  out += "  parallel:\n" + table(header, rows, "    ");
  if (!sc.post.empty()) out += fmt::format("  post: {}\n", list(names, sc.post));
  return out;
}

std::string format_report(const operation_names& names, const failing_run& f, const lincheck::options& opts,
                          std::size_t scenario_index, std::size_t original_calls, bool generated) {
  const scenario& sc = f.sc;
  std::string out = generated ? fmt::format("heddle lincheck: {} in scenario {} of {}", f.verdict.kind,
                                            scenario_index, opts.scenarios)
                              : fmt::format("heddle lincheck: {}", f.verdict.kind);
  if (original_calls != sc.calls())
    out += fmt::format(" (minimized from {} calls to {}; {} of {} removals kept the failing schedule)",
                       original_calls, sc.calls(), f.reductions_on_schedule, f.reductions);
  out += "\n\nScenario:\n" + scenario_text(names, sc);

  // Interleaving: column 0 is the sequential parts, then one per thread.
  std::vector<std::string> header{"init/post"};
  for (std::size_t t = 0; t < sc.threads.size(); ++t) header.push_back(fmt::format("T{}", t + 1));
  std::vector<std::vector<std::string>> rows;
  for (const interleaving_event& e : f.run.events) {
    std::vector<std::string> row(header.size());
    if (e.thread >= row.size()) continue;
    const call_record& c = f.run.calls[e.call];
    switch (e.what) {
      case interleaving_event::kind::invoke: row[e.thread] = call_text(names, c, false); break;
      case interleaving_event::kind::respond: row[e.thread] = "  -> " + (c.result ? c.result->text() : "?"); break;
      case interleaving_event::kind::switched: row[e.thread] = "  (" + e.text + ")"; break;
    }
    rows.push_back(std::move(row));
  }
  for (const call_record& c : f.run.calls)
    if (c.pending() && c.thread < header.size()) {
      std::vector<std::string> row(header.size());
      row[c.thread] = "  (never returned)";
      rows.push_back(std::move(row));
    }
  out += "\nInterleaving (time flows down, one column per thread):\n" + table(header, rows, "  ");
  out += fmt::format("\nWhy: {}\n", f.verdict.message);
  if (!generated) return out;
  out += fmt::format("\nTo run it again: the same declaration and options (seed {:#x}, strategy {}, {} runs per "
                     "scenario) fail at scenario {} again.\n",
                     opts.seed, opts.strategy, opts.iterations, scenario_index);
  return out;
}

std::string replay_hint(const std::string& program, const std::string& test, const std::string& trace_file,
                        std::string_view verb) {
  if (trace_file.empty()) return {};
  return fmt::format("\nThe trace of this run: {}\nIt {} again with: heddle replay {} (or {} --gtest_filter={} "
                     "--heddle_replay={})\n",
                     trace_file, verb, trace_file, program, test, trace_file);
}

}  // namespace heddle::lincheck::detail
