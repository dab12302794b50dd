// Helpers of the litmus tests (litmus_test.cpp, litmus_causality_test.cpp):
// run a litmus body under memory_model::rc11 and collect its final outcomes,
// and build outcome sets to compare them with. The expected sets are written
// from the RC11 model at each test, never from heddle's output.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/thread.hpp"

namespace litmus {

using outcome = std::vector<int>;
using outcomes = std::set<outcome>;
inline constexpr auto rlx = std::memory_order_relaxed;
inline constexpr auto acq = std::memory_order_acquire;
inline constexpr auto rel = std::memory_order_release;
inline constexpr auto acq_rel = std::memory_order_acq_rel;
inline constexpr auto sc = std::memory_order_seq_cst;
inline constexpr std::uint64_t bound_4 = 20'000;  // executions of a four-thread test

// dpor's exhaustive run of `body` under rc11: the outcomes it reached and the
// executions it counted (each execution graph once, docs/memory-model.md,
// "dpor under rc11"). Its verdict names the model.
struct dpor_run {
  outcomes seen;
  std::uint64_t executions = 0;
  std::uint64_t runs = 0;  // iterations, complete or cut as redundant
};
// Whether the last explore_dpor_rc11 had an iteration where the model took
// happens-before between two threads' seq_cst accesses for psc although only
// accesses of one location lay between (statistics::sc_in_run_order_iterations):
// only there may it hide executions RC11 allows.
inline bool last_dpor_ordered_seq_cst_as_run = false;
inline dpor_run explore_dpor_rc11(const std::function<outcome()>& body) {
  dpor_run run;
  heddle::options o{.iterations = 1'000'000, .strategy = "dpor"};
  o.print_report = false;
  o.out.clear();
  o.memory_model = heddle::memory_model::rc11;
  auto r = heddle::explore(o, [&] { run.seen.insert(body()); });
  EXPECT_TRUE(r) << r.report;
  EXPECT_TRUE(r.stats.exhausted) << r.verdict();
  EXPECT_TRUE(r.stats.schedules_are_executions);
  // Tests of atomics alone, in a binary not built with heddle-c++: plain
  // memory is not seen, which the verdict says when weaker orders were used;
  // where the model took happens-before between two threads' seq_cst
  // accesses for psc with only accesses of one location between (a plain
  // access it does not see may have been one of another), it says so too
  // (verdict.rc11_pass_that_ordered_seq_cst_accesses_through_one_location_says_so).
  EXPECT_EQ(r.verdict(), "passed: explored all " + std::to_string(r.stats.schedules) + " execution" +
                             (r.stats.schedules == 1 ? "" : "s") + ", verified under RC11" +
                             (r.stats.plain_unseen_iterations > 0 ? " for atomics only" : "") +
                             (r.stats.sc_in_run_order_iterations > 0 ? ", with seq_cst accesses ordered by happens-before"
                                                                     : ""));
  last_dpor_ordered_seq_cst_as_run = r.stats.sc_in_run_order_iterations > 0;
  run.executions = r.stats.schedules;
  run.runs = r.stats.iterations;
  return run;
}
// How many RC11 executions of `body` dpor explored, and in how many runs
// (iterations): equal where dpor runs each execution once.
struct counts {
  std::uint64_t executions = 0;
  std::uint64_t runs = 0;
  bool operator==(const counts&) const = default;
  friend std::ostream& operator<<(std::ostream& os, const counts& c) {
    return os << c.executions << " executions in " << c.runs << " runs";
  }
};
inline counts counts_rc11(const std::function<outcome()>& body) {
  const dpor_run run = explore_dpor_rc11(body);
  return {run.executions, run.runs};
}

// Every final outcome of `body` over all rc11 executions dfs explores; dpor
// must reach exactly the same ones. The four-thread tests have too many
// interleavings for dfs to finish in a unit test's time (about a million
// executions, 10 s here, when it does; its first executions all vary the last
// thread only): they run `bound` random executions instead (fixed seed),
// which must reach every allowed outcome and no forbidden one all the same;
// dpor, which does not interleave independent steps, still explores them all.
inline outcomes explore_rc11(const std::function<outcome()>& body, std::uint64_t bound = 0) {
  outcomes seen;
  heddle::options o{.iterations = bound != 0 ? bound : 1'000'000, .strategy = bound != 0 ? "random" : "dfs"};
  o.print_report = false;
  o.out.clear();
  o.memory_model = heddle::memory_model::rc11;
  auto r = heddle::explore(o, [&] { seen.insert(body()); });
  EXPECT_TRUE(r) << r.report;
  if (bound == 0) {
    EXPECT_TRUE(r.stats.exhausted);
    EXPECT_NE(r.verdict().find(" schedules, verified under RC11"), std::string::npos) << r.verdict();
  }
  EXPECT_EQ(explore_dpor_rc11(body).seen, seen) << "dpor reached other outcomes than " << o.strategy;
  return seen;
}

// All outcomes with `n` values, each in [0, top].
inline outcomes all_outcomes(std::size_t n, int top) {
  outcomes all{{}};
  for (std::size_t i = 0; i < n; ++i) {
    outcomes next;
    for (const auto& o : all)
      for (int v = 0; v <= top; ++v) {
        auto w = o;
        w.push_back(v);
        next.insert(w);
      }
    all = next;
  }
  return all;
}
inline outcomes without(outcomes all, const std::vector<outcome>& forbidden) {
  for (const auto& f : forbidden) all.erase(f);
  return all;
}

}  // namespace litmus
