#include "summary.hpp"

#include <cstdio>
#include <fstream>

#include <fmt/format.h>
#include <unistd.h>

#include "heddle/explore.hpp"

#include "commands.hpp"
#include "test_binary.hpp"

namespace heddle::cli {
namespace {

using nlohmann::json;

std::string stats_text(const json& record) {
  const json stats = record.value("stats", json::object());
  const std::uint64_t iterations = stats.value("iterations", std::uint64_t{0});
  const double seconds = stats.value("seconds", 0.0);
  std::string text = fmt::format("{} iteration{} in {:.2f} s", iterations, iterations == 1 ? "" : "s", seconds);
  if (seconds > 0) text += fmt::format(" ({:.0f}/s)", static_cast<double>(iterations) / seconds);
  if (const auto hits = stats.value("max_steps_hits", std::uint64_t{0}); hits > 0)
    text += fmt::format(", {} ended at --max-steps", hits);
  if (const auto races = stats.value("races_suppressed", std::uint64_t{0}); races > 0)
    text += fmt::format(", {} data race{} suppressed (--suppressions)", races, races == 1 ? "" : "s");
  return text;
}

// The statistics line under a test's verdict.
std::string details_text(const json& record) {
  if (const auto l = record.find("lincheck"); l != record.end()) {
    // A lincheck test: scenarios of runs, not iterations of one body.
    if (!l->contains("runs")) return {};
    const std::uint64_t runs = l->value("runs", std::uint64_t{0});
    const std::uint64_t steps = l->value("steps", std::uint64_t{0});
    return fmt::format("lincheck: {} scenario{}, {} run{} ({} per scenario at most, {}, seed {:#x}), {:.1f} decisions "
                       "per run, {} at atomic operations",
                       l->value("scenarios", 0u), l->value("scenarios", 0u) == 1 ? "" : "s", runs,
                       runs == 1 ? "" : "s", l->value("runs_per_scenario", std::uint64_t{0}),
                       l->value("strategy", ""), l->value("seed", std::uint64_t{0}),
                       runs > 0 ? static_cast<double>(steps) / static_cast<double>(runs) : 0.0,
                       l->value("atomic_steps", std::uint64_t{0}));
  }
  const json s = record.value("stats", json::object());
  if (s.value("iterations", std::uint64_t{0}) == 0) return {};
  std::string text = fmt::format("steps per iteration {}/{:.1f}/{} (min/mean/max), up to {} enabled at once, {} "
                                 "distinct schedule{}",
                                 s.value("steps_min", std::uint64_t{0}), s.value("steps_mean", 0.0),
                                 s.value("steps_max", std::uint64_t{0}), s.value("max_enabled", std::uint64_t{0}),
                                 s.value("distinct_schedules", std::uint64_t{0}),
                                 s.value("distinct_schedules", std::uint64_t{0}) == 1 ? "" : "s");
  if (const auto states = s.value("distinct_end_states", std::uint64_t{0}); states > 0)
    text += fmt::format(", {} distinct end state{}", states, states == 1 ? "" : "s");
  if (const double share = s.value("max_steps_share", 0.0); share > 0)
    text += fmt::format(", {:.1f}% at --max-steps", 100 * share);
  if (const auto workers = s.value("workers", 0u); workers > 0) {
    text += fmt::format(", {} worker{}", workers, workers == 1 ? "" : "s");
    if (const auto replaced = s.value("workers_replaced", std::uint64_t{0}); replaced > 0)
      text += fmt::format(" ({} replaced)", replaced);
  }
  return text;
}

void print_bug_group(const json& g) {
  fmt::print("      {}: {}\n", g.value("kind", ""), g.value("message", ""));
  const std::string file = g.value("file", "");
  const unsigned line = g.value("line", 0u);
  const unsigned op = g.value("operation", 0u);
  const std::string name = g.value("operation_name", "");
  std::string where;
  if (op != 0) where = name.empty() ? fmt::format("in operation {}", op) : fmt::format("in operation {} ({})", op, name);
  if (!file.empty() && line != 0) where += fmt::format("{}at {}:{}", where.empty() ? "" : " ", file, line);
  const std::uint64_t count = g.value("count", std::uint64_t{1});
  fmt::print("      {}{}{} iteration{}, first in iteration {}\n", where, where.empty() ? "" : "; ", count,
             count == 1 ? "" : "s", g.value("first_iteration", std::uint64_t{0}));
  const std::string trace = g.value("trace_file", "");
  if (!trace.empty()) {
    fmt::print("      trace:  {}\n", trace);
    fmt::print("      replay: {}\n", replay_command(trace));
  } else {
    fmt::print("      no trace was saved (pass --out DIR to keep it)\n");
  }
}

}  // namespace

bool is_bug(const test_outcome& t) { return t.status == "bug" || t.status == "crash"; }

void take_record(test_outcome& t, const json& record) {
  t.record = record;
  t.status = record.value("status", "error");
  t.message = record.value("message", "");
  t.trace_file = record.value("trace_file", "");
  if (const auto b = record.find("bug"); b != record.end() && b->is_object()) {
    t.kind = b->value("kind", "");
    t.message = b->value("message", "");
    const std::string file = b->value("file", "");
    const unsigned line = b->value("line", 0u);
    if (!file.empty() && line != 0) t.where = fmt::format("{}:{}", file, line);
    const unsigned op = b->value("operation", 0u);
    const std::string name = b->value("operation_name", "");
    if (op != 0) t.operation = name.empty() ? fmt::format("operation {}", op) : fmt::format("operation {} ({})", op, name);
  }
}

std::string replay_command(const std::string& trace_file) {
  return trace_file.empty() ? std::string{} : "heddle replay " + shell_quote(trace_file);
}

void print_text_summary(const std::vector<test_outcome>& tests, const std::string& program, int exit) {
  fmt::print("\nheddle: summary of {} ({} test{})\n", program, tests.size(), tests.size() == 1 ? "" : "s");
  for (const test_outcome& t : tests) {
    const std::string details = t.record.is_object() ? details_text(t.record) : std::string{};
    const auto print_details = [&] {
      if (!details.empty()) fmt::print("      {}\n", details);
    };
    if (t.status == "passed") {
      const json stats = t.record.value("stats", json::object());
      const std::string verdict = t.record.value("verdict", "");
      const json caveats = t.record.value("caveats", json::array());
      const bool cut = stats.value("max_steps_hits", std::uint64_t{0}) > 0;
      const bool interrupted = t.record.value("interrupted", false);
      if (!verdict.empty() && (cut || stats.value("exhausted", false) || !caveats.empty() || interrupted)) {
        // A qualified pass: the verdict says what it covers, each caveat what it did not check.
        fmt::print("  {}  {}\n", t.id, verdict);
        fmt::print("      {}\n", stats_text(t.record));
        for (const json& c : caveats)
          if (c.is_string()) fmt::print("      not checked: {}\n", c.get<std::string>());
      } else if (stats.value("exhausted", false)) {
        // A systematic strategy covered every schedule: a verified verdict.
        const std::uint64_t schedules = stats.value("iterations", std::uint64_t{0});
        fmt::print("  {}  passed: explored all {} schedule{} (verified)\n", t.id, schedules, schedules == 1 ? "" : "s");
        fmt::print("      {}\n", stats_text(t.record));
      } else {
        fmt::print("  {}  passed: no bug in {}\n", t.id, stats_text(t.record));
      }
      print_details();
      continue;
    }
    if (t.status == "not_run") {
      fmt::print("  {}  {}\n", t.id,
                 t.record.is_object() && t.record.value("interrupted", false)
                     ? "not run (interrupted by SIGINT or SIGTERM before it began)"
                     : "not run (the binary stopped before it)");
      continue;
    }
    if (is_bug(t)) {
      const json groups = t.record.is_object() ? t.record.value("bugs", json::array()) : json::array();
      fmt::print("  {}  BUG{}\n", t.id, t.record.is_object() ? " found after " + stats_text(t.record) : "");
      print_details();
      if (groups.size() > 1) fmt::print("      {} different bugs (by kind, location and message):\n", groups.size());
      if (!groups.empty()) {
        for (const json& g : groups) print_bug_group(g);
        continue;
      }
      fmt::print("      {}: {}\n", t.kind, t.message);
      if (!t.where.empty() || !t.operation.empty())
        fmt::print("      {}{}{}\n", t.operation.empty() ? "" : "in " + t.operation,
                   t.operation.empty() || t.where.empty() ? "" : " ", t.where.empty() ? "" : "at " + t.where);
      if (!t.trace_file.empty()) {
        fmt::print("      trace:  {}\n", t.trace_file);
        fmt::print("      replay: {}\n", replay_command(t.trace_file));
      } else {
        fmt::print("      no trace was saved (pass --out DIR to keep it)\n");
      }
      continue;
    }
    fmt::print("  {}  {}: {}\n", t.id, t.status == "diverged" ? "diverged" : "error", t.message);
  }
  std::size_t bugs = 0, cut = 0, interrupted = 0;
  for (const test_outcome& t : tests) {
    bugs += is_bug(t) ? 1 : 0;
    if (t.record.is_object() && t.record.value("interrupted", false)) ++interrupted;
    if (t.status == "passed" && t.record.is_object() &&
        t.record.value("stats", json::object()).value("max_steps_hits", std::uint64_t{0}) > 0)
      ++cut;
  }
  if (bugs > 0)
    fmt::print("heddle: {} bug{} found in {} test{}\n", bugs, bugs == 1 ? "" : "s", tests.size(),
               tests.size() == 1 ? "" : "s");
  else if (exit == no_bug && interrupted > 0)
    fmt::print("heddle: no bug found before the interrupt: {} test{} stopped early or did not run\n", interrupted,
               interrupted == 1 ? "" : "s");
  else if (exit == no_bug && cut > 0)
    fmt::print("heddle: no bug found, but {} test{} {} cut at --max-steps: what comes after the cut was not checked "
               "(raise --max-steps)\n",
               cut, cut == 1 ? "" : "s", cut == 1 ? "was" : "were");
  else if (exit == no_bug)
    fmt::print("heddle: no bug found\n");
}

json json_tests(const std::vector<test_outcome>& tests) {
  json all = json::array();
  for (const test_outcome& t : tests) {
    json entry = t.record.is_object() ? t.record : json::object();
    entry["test"] = t.id;
    entry["location"] = t.location;
    entry["status"] = t.status;
    if (is_bug(t)) {
      json b = entry.contains("bug") ? entry["bug"] : json::object();
      b["kind"] = t.kind;
      b["message"] = t.message;
      entry["bug"] = b;
      entry["trace_file"] = t.trace_file;
      entry["replay"] = replay_command(t.trace_file);
    } else if (!t.message.empty()) {
      entry["message"] = t.message;
    }
    all.push_back(std::move(entry));
  }
  return all;
}

std::string status_word(int exit) {
  return exit == no_bug ? "passed" : exit == bug_found ? "bug" : exit == usage_problem ? "error" : "internal_error";
}

void write_json_file(const std::string& path, const json& summary) {
  const std::string temporary = fmt::format("{}.{}.tmp", path, ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    out << summary.dump(2) << "\n";
    if (!out.flush()) {
      std::remove(temporary.c_str());
      throw usage_error(fmt::format("cannot write the JSON summary to '{}'", path));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw usage_error(fmt::format("cannot write the JSON summary to '{}'", path));
  }
}

}  // namespace heddle::cli
