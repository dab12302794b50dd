#include "runner/bug_groups.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include <fmt/format.h>

namespace heddle::detail {
namespace {
// Operation and object numbers follow first use, so they change with the
// interleaving: one root cause, many numbers.
std::string masked(std::string_view message) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message[i] >= '0' && message[i] <= '9') {
      out += '#';
      while (i + 1 < message.size() && message[i + 1] >= '0' && message[i + 1] <= '9') ++i;
    } else {
      out += message[i];
    }
  }
  return out;
}
}  // namespace

std::string root_cause(const bug& b, const std::vector<source_position>& blocked_at) {
  std::vector<std::string> places;
  for (const source_position& p : blocked_at)
    if (p.known()) places.push_back(fmt::format("{}:{}", p.file, p.line));
  if (b.kind == bug_kind::deadlock && !places.empty()) {
    // Which operations wait, and which of them noticed, vary from one
    // iteration to the next; the places where they block do not.
    std::sort(places.begin(), places.end());
    places.erase(std::unique(places.begin(), places.end()), places.end());
    std::string key = "deadlock|blocked at";
    for (const std::string& p : places) key += " " + p;
    return key;
  }
  // A deadlock's or livelock's location only says which operation noticed; a
  // hang or an exit status has none; a race is both its accesses (in the
  // message). A failing check is its location.
  const bool located = b.where.known() && b.kind != bug_kind::deadlock && b.kind != bug_kind::livelock &&
                       b.kind != bug_kind::hang && b.kind != bug_kind::exit_code && b.kind != bug_kind::data_race;
  if (located) {
    // "kind|file:line", as the format below, without fmt: one allocation, on
    // every bug path (issue 14).
    const std::string_view kind = to_string(b.kind);
    char line[16];
    const auto end = std::to_chars(line, line + sizeof line, b.where.line).ptr;
    std::string key;
    key.reserve(kind.size() + 1 + b.where.file.size() + 1 + static_cast<std::size_t>(end - line));
    key.append(kind).append(1, '|').append(b.where.file).append(1, ':').append(line, end);
    return key;
  }
  return fmt::format("{}|{}:{}|{}", to_string(b.kind), b.where.file, b.where.line, masked(b.message));
}

bool bug_collector::add(bug_group&& g) {
  if (opts_.stop_on_first_bug && !groups_.empty()) return false;
  for (bug_group& kept : groups_) {
    if (kept.signature == g.signature) {
      kept.count += g.count;
      return false;
    }
  }
  if (const auto early = early_counts_.find(g.signature); early != early_counts_.end()) {
    g.count += early->second;
    early_counts_.erase(early);
  }
  if (opts_.print_report) std::fputs(g.report.c_str(), stderr);
  groups_.push_back(std::move(g));
  return true;
}

void bug_collector::count(const std::string& signature) {
  for (bug_group& kept : groups_) {
    if (kept.signature == signature) {
      ++kept.count;
      return;
    }
  }
  ++early_counts_[signature];
}

void bug_collector::into(result& r) {
  // In iteration order, as a run in one process finds them: workers may
  // finish a later group first.
  // Usually in order already (one group, or one process): stable_sort would
  // still take a temporary buffer from the heap on every bug path.
  const auto earlier = [](const bug_group& a, const bug_group& b) { return a.first_iteration < b.first_iteration; };
  if (!std::is_sorted(groups_.begin(), groups_.end(), earlier))
    std::stable_sort(groups_.begin(), groups_.end(), earlier);
  r.bugs = std::move(groups_);
  groups_.clear();
  if (r.bugs.empty()) return;
  const bug_group& first = r.bugs.front();
  r.bug = first.bug;
  r.trace = first.trace;
  r.minimized_trace = first.minimized_trace;
  r.trace_file = first.trace_file;
  r.report = first.report;
}

}  // namespace heddle::detail
