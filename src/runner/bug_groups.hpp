// The bugs of a run, grouped by signature (the root cause, bug::signature()):
// one group per signature with its first occurrence's traces and report and a
// count of the iterations that ended with it.
//
// Contract: groups come out (into()) in the order of their first iteration.
// With stop_on_first_bug only the first group is kept (the run is
// stopping); otherwise (--explore) every signature is. A group's report is
// printed to stderr when the group is added, if print_report is set. Counts
// of a signature may arrive before its group (workers finish out of order);
// they are kept and added to it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "heddle/explore.hpp"

namespace heddle::detail {

// The root cause of a bug, the signature that groups bugs across iterations,
// workers and shards (--explore, heddle merge; docs/reports.md): for a
// deadlock, the kind and the set of places where its operations block
// (`blocked_at`, iteration_outcome's); for a bug at a known source location,
// the kind and that location; otherwise the kind, the location and the
// message with its numbers masked.
std::string root_cause(const bug& b, const std::vector<source_position>& blocked_at);

class bug_collector {
 public:
  explicit bug_collector(const options& o) : opts_(o) {}
  // True when the group was kept (a new signature). Taken by rvalue: a
  // group is moved in once (each move of a bug_group is a few hundred
  // instructions on the bug path, issue 14).
  bool add(bug_group&& g);
  // One more iteration ended with a signature seen before.
  void count(const std::string& signature);
  bool empty() const noexcept { return groups_.empty(); }
  std::size_t size() const noexcept { return groups_.size(); }
  // Fills result.bugs and the first bug's fields of `r`.
  void into(result& r);

 private:
  const options& opts_;
  std::vector<bug_group> groups_;
  std::map<std::string, std::uint64_t> early_counts_;
};

}  // namespace heddle::detail
