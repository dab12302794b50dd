// The bugs of a run, grouped by signature (kind + source location + message):
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

class bug_collector {
 public:
  explicit bug_collector(const options& o) : opts_(o) {}
  // True when the group was kept (a new signature).
  bool add(bug_group g);
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
