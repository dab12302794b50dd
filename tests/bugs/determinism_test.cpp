// Same seed, same result wherever iterations run (docs/running.md): for every
// strategy and every program of the bug suite, a run in worker processes
// (--parallel N) and a run split into shards find exactly what the in-process
// run finds: the same first bug at the same iteration with a byte-identical
// trace (recorded and minimized), the same buggy iterations up to the stop,
// and the same statistics. The parallel runs repeat, since a race between
// workers shows only in some runs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "heddle/trace.hpp"
#include "programs.hpp"

namespace {

using heddle_bugs::program;

// Enough iterations for every learning window to end a few times on the
// programs whose bug takes long, few enough to keep the suite fast.
constexpr std::uint64_t iterations = 300;

const std::vector<std::string> strategies = {"random", "prob:2", "pct:3", "pctt:3",    "pos",
                                             "db:2",   "surw",   "ql",    "portfolio", "fair(pct:3,after=50)"};

// What a run found, in a form two runs can be compared by.
struct outcome {
  bool found = false;
  std::uint64_t first_iteration = 0;
  std::string trace;            // JSON of the recorded trace
  std::string minimized_trace;  // JSON of the saved one
  std::uint64_t iterations = 0;
  std::uint64_t buggy_iterations = 0;
  std::uint64_t steps_total = 0;
  std::uint64_t distinct_schedules = 0;
  std::vector<std::uint64_t> buggy;  // indices of the iterations that ended with a bug
  // Per signature: count, first iteration and its recorded trace (JSON).
  std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t, std::string>> groups;

  bool operator==(const outcome&) const = default;
};

std::string describe(const outcome& o) {
  std::string text = o.found ? fmt::format("first bug at iteration {}", o.first_iteration) : "no bug";
  text += fmt::format(", {} iterations ({} buggy: {}), {} steps, {} distinct schedules", o.iterations,
                      o.buggy_iterations, fmt::join(o.buggy, " "), o.steps_total, o.distinct_schedules);
  for (const auto& [signature, count, first, trace] : o.groups)
    text += fmt::format("\n    {} x{} first at {}", signature, count, first);
  return text;
}

void PrintTo(const outcome& o, std::ostream* os) { *os << describe(o); }

outcome summarize(const heddle::result& r) {
  outcome o;
  o.found = r.bug.has_value();
  if (o.found) {
    o.first_iteration = r.bugs.front().first_iteration;
    o.trace = heddle::to_json(r.trace);
    o.minimized_trace = heddle::to_json(r.minimized_trace);
  }
  o.iterations = r.stats.iterations;
  o.buggy_iterations = r.stats.buggy_iterations;
  o.steps_total = r.stats.steps_total;
  o.distinct_schedules = r.stats.distinct_schedules;
  for (const heddle::iteration_record& i : r.iterations)
    if (i.bug) o.buggy.push_back(i.index);
  for (const heddle::bug_group& g : r.bugs)
    o.groups.emplace_back(g.signature, g.count, g.first_iteration, heddle::to_json(g.trace));
  // Groups come in the order found: compare them by signature.
  std::sort(o.groups.begin(), o.groups.end());
  return o;
}

heddle::options options_for(const program& p, const std::string& strategy, unsigned parallel) {
  heddle::options o = heddle_bugs::options_for(p, strategy, iterations);
  o.parallel = parallel;
  o.record_iterations = true;
  o.progress = false;
  return o;
}

outcome run(const program& p, const heddle::options& o) {
  return summarize(heddle::explore(o, p.buggy, heddle_bugs::identity_of(p)));
}

class determinism : public ::testing::TestWithParam<std::string> {};

std::string strategy_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string out;
  for (char c : info.param) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// The acceptance test of issue 14: --parallel 2 against --parallel 0, three times.
TEST_P(determinism, two_workers_find_the_same_first_bug_and_trace_as_one_process_three_times) {
  for (const program& p : heddle_bugs::all_programs()) {
    const outcome here = run(p, options_for(p, GetParam(), 0));
    for (int repeat = 1; repeat <= 3; ++repeat) {
      const outcome workers = run(p, options_for(p, GetParam(), 2));
      EXPECT_EQ(workers, here) << p.name << " under " << GetParam() << ", run " << repeat << " with 2 workers:\n  "
                               << describe(workers) << "\nin process:\n  " << describe(here);
    }
  }
}

// Without stopping at the first bug (--explore), every iteration of the run
// (several learning windows) ends the same way, and each signature keeps its
// earliest occurrence.
TEST_P(determinism, two_workers_with_explore_find_every_bug_of_one_process) {
  for (const program& p : heddle_bugs::all_programs()) {
    heddle::options here_options = options_for(p, GetParam(), 0);
    here_options.stop_on_first_bug = false;
    here_options.minimize = false;
    const outcome here = run(p, here_options);
    heddle::options worker_options = here_options;
    worker_options.parallel = 2;
    const outcome workers = run(p, worker_options);
    EXPECT_EQ(workers, here) << p.name << " under " << GetParam() << " with --explore";
  }
}

// One and four workers, on the programs where a bug comes late enough for
// workers to overtake each other.
TEST_P(determinism, one_and_four_workers_find_the_same_as_one_process) {
  for (const program& p : heddle_bugs::all_programs()) {
    const outcome here = run(p, options_for(p, GetParam(), 0));
    if (!here.found || here.first_iteration < 3) continue;
    for (unsigned workers : {1u, 4u}) {
      const outcome there = run(p, options_for(p, GetParam(), workers));
      EXPECT_EQ(there, here) << p.name << " under " << GetParam() << " with " << workers << " workers:\n  "
                             << describe(there) << "\nin process:\n  " << describe(here);
    }
  }
}

// Shards: with --explore (no stop at the first bug), the shards' iterations
// together are the unsplit run's, iteration for iteration, and the earliest
// bug of the shards is the unsplit run's first bug with the same trace.
TEST_P(determinism, three_shards_together_are_the_unsharded_run) {
  for (const program& p : heddle_bugs::all_programs()) {
    heddle::options whole = options_for(p, GetParam(), 0);
    whole.stop_on_first_bug = false;
    whole.minimize = false;
    const heddle::result all = heddle::explore(whole, p.buggy, heddle_bugs::identity_of(p));
    std::set<std::pair<std::uint64_t, std::uint64_t>> united;  // index, schedule hash
    std::optional<heddle::bug_group> earliest;
    for (std::uint64_t shard = 0; shard < 3; ++shard) {
      heddle::options part = whole;
      part.shard_index = shard;
      part.shard_count = 3;
      part.parallel = shard == 1 ? 2 : 0;  // a shard may run in workers too
      const heddle::result r = heddle::explore(part, p.buggy, heddle_bugs::identity_of(p));
      for (const heddle::iteration_record& i : r.iterations) united.emplace(i.index, i.schedule_hash);
      for (const heddle::bug_group& g : r.bugs)
        if (!earliest || g.first_iteration < earliest->first_iteration) earliest = g;
    }
    std::set<std::pair<std::uint64_t, std::uint64_t>> expected;
    for (const heddle::iteration_record& i : all.iterations) expected.emplace(i.index, i.schedule_hash);
    EXPECT_EQ(united, expected) << p.name << " under " << GetParam();
    ASSERT_EQ(earliest.has_value(), all.bug.has_value()) << p.name << " under " << GetParam();
    if (earliest) {
      EXPECT_EQ(earliest->first_iteration, all.bugs.front().first_iteration) << p.name << " under " << GetParam();
      EXPECT_EQ(heddle::to_json(earliest->trace), heddle::to_json(all.trace)) << p.name << " under " << GetParam();
    }
  }
}

// The trace files of an --explore run are numbered bug-1, bug-2, ... in the
// order one process finds the bugs (the order of their first iterations),
// also in workers, where the bug decided second may finish minimizing first.
// Minimization is on, so that finishing takes a while and varies.
TEST(determinism_files, two_workers_with_explore_number_trace_files_as_one_process) {
  namespace fs = std::filesystem;
  // CTest sets HEDDLE_OUT empty for this binary (no traces), which would win
  // over options::out: this test writes them, under a directory of its own.
  const char* saved_out = std::getenv("HEDDLE_OUT");
  const std::optional<std::string> restore_out = saved_out ? std::optional<std::string>(saved_out) : std::nullopt;
  ::unsetenv("HEDDLE_OUT");
  const fs::path base = fs::temp_directory_path() / fmt::format("heddle_numbering_{}", ::getpid());
  // Each trace file's name (bug-N.json) with the signature and first iteration of its group.
  const auto files = [&](const program& p, const std::string& strategy, unsigned parallel, int run) {
    heddle::options o = options_for(p, strategy, parallel);
    o.stop_on_first_bug = false;
    o.out = (base / fmt::format("{}_{}", parallel, run)).string();
    const heddle::result r = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
    std::vector<std::string> named;
    for (const heddle::bug_group& g : r.bugs) {
      EXPECT_FALSE(g.trace_file.empty()) << p.name;
      named.push_back(fmt::format("{} {} {}", fs::path(g.trace_file).filename().string(), g.first_iteration,
                                  g.signature));
    }
    std::sort(named.begin(), named.end());
    return named;
  };
  // Only a program with more than one root cause has an order to get wrong
  // (polite_livelock, under random): the others run in process only.
  std::size_t several = 0;
  for (const program& p : heddle_bugs::all_programs()) {
    const std::vector<std::string> here = files(p, "random", 0, 0);
    if (here.size() > 1) {
      ++several;
      for (int repeat = 1; repeat <= 3; ++repeat)
        EXPECT_EQ(files(p, "random", 2, repeat), here) << p.name << ", run " << repeat << " with 2 workers";
    }
    fs::remove_all(base);
  }
  EXPECT_GT(several, 0u) << "no program found more than one bug: the test compared nothing";
  if (restore_out) ::setenv("HEDDLE_OUT", restore_out->c_str(), 1);
}

INSTANTIATE_TEST_SUITE_P(every_strategy, determinism, ::testing::ValuesIn(strategies), strategy_name);

}  // namespace
