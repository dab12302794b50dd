// time_to_first_bug: what finding a bug costs beyond running iterations
// (issue 14, docs/performance.md). A check-then-act bug between two threads
// (both see "not created", both create) is found by `random` within a few
// iterations. Each figure is one whole explore() call, as a user's test makes
// it, with the bug not printed, no output directory and no minimization:
//
//   first_bug            the buggy program, until its first bug (iteration k)
//   clean_k_iterations   its fixed twin, for the same k iterations
//   first_bug_with_trace the buggy program, its trace and HTML written
//   clean_iteration      one clean iteration, from a run of 10,000
//
// The summary prints the medians (CPU time) and the ratio first_bug /
// clean_k_iterations (the acceptance is at most 1.2), and the trace write's
// cost. Run:
//
//   build/default/benchmarks/time_to_first_bug --benchmark_repetitions=15
//       --benchmark_report_aggregates_only=true
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "heddle/heddle.hpp"
#include "workloads.hpp"

namespace {

// The check-then-act of a lazily created object, on atomics (each access a
// scheduling point); the fixed twin checks and acts in one exchange.
using heddle::bench::check_then_act;

constexpr std::uint64_t seed = 42;

heddle::options quiet(std::uint64_t iterations, std::string out = "") {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = "random";
  o.seed = seed;
  o.print_report = false;
  o.progress = false;
  o.minimize = false;
  o.out = std::move(out);
  return o;
}

// The iteration count the first bug takes at this seed (k).
std::uint64_t iterations_to_first_bug() {
  static const std::uint64_t k = [] {
    const heddle::result r = heddle::explore(quiet(1000), [] { check_then_act(false); });
    return r.bug ? r.stats.iterations : 0;
  }();
  return k;
}

void first_bug(benchmark::State& state) {
  std::uint64_t k = 0;
  for (auto _ : state) {
    const heddle::result r = heddle::explore(quiet(1000), [] { check_then_act(false); });
    if (!r.bug) state.SkipWithError("no bug found");
    k = r.stats.iterations;
    benchmark::DoNotOptimize(r);
  }
  state.counters["iterations"] = static_cast<double>(k);
}

void clean_k_iterations(benchmark::State& state) {
  const std::uint64_t k = iterations_to_first_bug();
  for (auto _ : state) {
    const heddle::result r = heddle::explore(quiet(k), [] { check_then_act(true); });
    if (r.bug) state.SkipWithError("the fixed twin has a bug");
    benchmark::DoNotOptimize(r);
  }
  state.counters["iterations"] = static_cast<double>(k);
}

void first_bug_with_trace(benchmark::State& state) {
  const std::string out = (std::filesystem::temp_directory_path() / ("heddle-ttfb-" + std::to_string(::getpid()))).string();
  for (auto _ : state) {
    const heddle::result r = heddle::explore(quiet(1000, out), [] { check_then_act(false); });
    if (!r.bug || r.trace_file.empty()) state.SkipWithError("no trace written");
    benchmark::DoNotOptimize(r);
    state.PauseTiming();
    std::filesystem::remove_all(out);
    state.ResumeTiming();
  }
  std::filesystem::remove_all(out);
}

void clean_iteration(benchmark::State& state) {
  constexpr std::uint64_t n = 10'000;
  for (auto _ : state) {
    const heddle::result r = heddle::explore(quiet(n), [] { check_then_act(true); });
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

BENCHMARK(first_bug)->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(clean_k_iterations)->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(first_bug_with_trace)->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(clean_iteration)->Unit(benchmark::kMillisecond)->MinTime(0.3);

// The console output, then the medians (or single runs) and the ratios.
class summarizing_reporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      std::string name = run.run_name.str();
      name = name.substr(0, name.find('/'));
      if (medians_.count(name) != 0 && !median) continue;
      // CPU time: on a shared machine the wall clock mostly measures the others.
      seconds_[name] = run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      if (median) medians_[name] = true;
    }
  }
  void summarize() const {
    const auto at = [&](const char* name) {
      const auto it = seconds_.find(name);
      return it == seconds_.end() ? 0.0 : it->second;
    };
    const double bug = at("first_bug"), clean = at("clean_k_iterations"), traced = at("first_bug_with_trace");
    const double one = at("clean_iteration") / 10'000;
    std::printf("\nsummary (%s):\n", medians_.empty() ? "single runs" : "medians");
    std::printf("  first bug after %llu iterations: %.1f us; the same iterations clean: %.1f us; ratio %.2f (target <= 1.2)\n",
                static_cast<unsigned long long>(iterations_to_first_bug()), bug * 1e6, clean * 1e6,
                clean > 0 ? bug / clean : 0.0);
    std::printf("  with the trace and HTML written: %.1f us (+%.1f us)\n", traced * 1e6, (traced - bug) * 1e6);
    std::printf("  one clean iteration in a long run: %.2f us\n", one * 1e6);
  }

 private:
  std::map<std::string, double> seconds_;
  std::map<std::string, bool> medians_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  summarizing_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.summarize();
  benchmark::Shutdown();
  return 0;
}
