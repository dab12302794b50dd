// `heddle report <trace-file> [--html FILE] [--perfetto FILE]`: a bug's trace
// made readable, without running anything.
//
// Contract: the trace (JSON or compact) is read first; a malformed one is one
// line and exit 2. With --html, writes the self-contained HTML report (lanes,
// toggle between original and minimized trace, the bug); with --perfetto, the
// Chrome trace-event JSON that Perfetto opens. Always prints the text summary:
// the bug, each trace's preemptions and steps, and the interleaving of the
// last trace in the file (the minimized one when there is one). Exit 0.
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "heddle/explore.hpp"
#include "runner/html_report.hpp"
#include "runner/perfetto.hpp"
#include "runner/report.hpp"
#include "runner/timeline.hpp"

namespace heddle::cli {
namespace {

void write_file(const std::string& path, const std::string& text, std::string_view what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw usage_error(fmt::format("cannot write the {} to '{}'", what, path));
}

}  // namespace

int run_report(const report_arguments& args) {
  std::vector<detail::timeline> timelines;
  try {
    timelines = detail::load_timelines(args.trace);
  } catch (const trace_error& e) {
    throw usage_error(e.what());
  }
  if (args.html) write_file(*args.html, detail::html_report(timelines), "HTML report");
  if (args.perfetto) write_file(*args.perfetto, detail::chrome_trace_json(timelines), "Perfetto trace");

  const detail::timeline& first = timelines.front();
  const detail::timeline& shown = timelines.back();
  std::string text = fmt::format("heddle: trace of {} (strategy {}, seed {}, iteration {})\n\n", first.trace.header.test,
                                 first.trace.header.strategy, first.trace.header.seed, first.trace.header.iteration);
  // The bug of the trace whose interleaving is printed: a minimized trace
  // ends in the same bug, with a message (who waits, where) of its own.
  if (const std::optional<bug>& found = shown.trace.found ? shown.trace.found : first.trace.found) {
    const bug& b = *found;
    text += fmt::format("  {}: {}\n", to_string(b.kind), b.message);
    if (b.where.known()) text += fmt::format("    at {}:{}\n", b.where.file, b.where.line);
    text += fmt::format("    after {} steps\n", b.step);
  } else {
    text += "  no bug recorded\n";
  }
  text += "\n";
  for (const detail::timeline& t : timelines)
    text += fmt::format("  {:<10} {} steps, {}, {} operations\n", t.label + ":", t.steps.size(),
                        t.preemptions ? fmt::format("{} preemption{}", *t.preemptions, *t.preemptions == 1 ? "" : "s")
                                      : std::string("preemptions not measured"),
                        t.operation_count());
  text += fmt::format("\n  {} interleaving{}:\n", shown.label,
                      shown.annotated ? "" : " (no source locations: the trace carries no annotations)");
  text += detail::format_interleaving(shown);
  if (args.html) text += fmt::format("\n  html:     {}\n", *args.html);
  if (args.perfetto) text += fmt::format("{}  perfetto: {} (open in https://ui.perfetto.dev or chrome://tracing)\n",
                                         args.html ? "" : "\n", *args.perfetto);
  std::fputs(text.c_str(), stdout);
  return no_bug;
}

}  // namespace heddle::cli
