#include "runner/bug_groups.hpp"

#include <algorithm>
#include <cstdio>

namespace heddle::detail {

bool bug_collector::add(bug_group g) {
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
  std::stable_sort(groups_.begin(), groups_.end(),
                   [](const bug_group& a, const bug_group& b) { return a.first_iteration < b.first_iteration; });
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
