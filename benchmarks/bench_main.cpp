// main() of heddle_benchmarks: Google Benchmark's usual flags and console output,
// followed by a summary of the figures docs/performance.md quotes: the median of
// each figure (when run with --benchmark_repetitions), whether the target
// is met, and ratios between figures measured in this same run, which hold up far
// better than absolute numbers on a shared, noisy machine.
#include <cstdio>
#include <map>
#include <string>
#include <string_view>

#include <benchmark/benchmark.h>
#include <unistd.h>

namespace {

struct figure {
  double seconds_per_iteration = 0;  // real time of one benchmark iteration
  std::map<std::string, double> counters;
  bool median = false;
  bool failed = false;
};

// The console reporter, remembering each benchmark's median (or single) run.
class summarizing_reporter final : public benchmark::ConsoleReporter {
 public:
  explicit summarizing_reporter(bool color) : ConsoleReporter(color ? OO_ColorTabular : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool is_median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !is_median) continue;
      figure& f = figures_[run.run_name.str()];
      if (f.median && !is_median) continue;
      f.median = is_median;
      f.failed = run.error_occurred;
      f.seconds_per_iteration = run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      f.counters.clear();
      for (const auto& [name, counter] : run.counters) f.counters[name] = counter.value;
    }
  }

  // The counter `counter` of the first benchmark whose name starts with `prefix`.
  double get(std::string_view prefix, const std::string& counter) const {
    for (const auto& [name, f] : figures_) {
      if (name.compare(0, prefix.size(), prefix) != 0 || f.failed) continue;
      const auto it = f.counters.find(counter);
      return it == f.counters.end() ? 0.0 : it->second;
    }
    return 0.0;
  }

  bool any_median() const {
    for (const auto& [name, f] : figures_)
      if (f.median) return true;
    return false;
  }

 private:
  std::map<std::string, figure> figures_;
};

void print_rate(const char* what, double rate, double target) {
  if (rate <= 0) {
    std::printf("  %-52s %16s\n", what, "not measured");
    return;
  }
  std::printf("  %-52s %13.0f/s", what, rate);
  if (target > 0) std::printf("   target >= %.0f/s: %s", target, rate >= target ? "met" : "NOT MET");
  std::printf("\n");
}

void print_cost(const char* what, double seconds) {
  if (seconds <= 0) {
    std::printf("  %-52s %16s\n", what, "not measured");
    return;
  }
  std::printf("  %-52s %13.1f ns\n", what, seconds * 1e9);
}

void print_ratio(const char* what, double numerator, double denominator) {
  if (numerator <= 0 || denominator <= 0) return;
  std::printf("  %-52s %13.1fx\n", what, numerator / denominator);
}

void summarize(const summarizing_reporter& r) {
  const double decisions_random = r.get("decisions/random", "decisions/s");
  const double decisions_pct = r.get("decisions/pct:3", "decisions/s");
  const double iterations_random = r.get("iterations/random/one_core", "iterations/s");
  const double iterations_pct = r.get("iterations/pct:3/one_core", "iterations/s");
  const double decisions_per_iteration = r.get("iterations/random/one_core", "decisions/iteration");
  const double boost_switch = r.get("reference/boost_context_switch", "switch");
  const double ucontext_switch = r.get("reference/ucontext_switch", "switch");
  const double futex_same = r.get("reference/futex_handoff/same_cpu", "switch");
  const double futex_cross = r.get("reference/futex_handoff/cross_cpu", "switch");
  const double futex_unpinned = r.get("reference/futex_handoff/unpinned", "switch");
  const double condvar_same = r.get("reference/condvar_handoff/same_cpu", "switch");
  const double condvar_unpinned = r.get("reference/condvar_handoff/unpinned", "switch");
  const double decision_cost = decisions_random > 0 ? 1 / decisions_random : 0;
  const double iteration_cost = iterations_random > 0 ? 1 / iterations_random : 0;

  std::printf("\nheddle summary (%s; ratios are within this run)\n",
              r.any_median() ? "medians of the repetitions" : "single runs: pass --benchmark_repetitions=N for medians");
  std::printf(" engine\n");
  print_rate("decisions, random, 2 x 10,000 yields", decisions_random, 20e6);
  print_rate("decisions, pct:3, 2 x 10,000 yields", decisions_pct, 0);
  print_rate("iterations, random, 2 x 10 mutex increments, 1 CPU", iterations_random, 400e3);
  print_rate("iterations, pct:3, 2 x 10 mutex increments, 1 CPU", iterations_pct, 0);
  if (decisions_per_iteration > 0)
    std::printf("  %-52s %13.1f\n", "decisions per mutex iteration (random)", decisions_per_iteration);
  print_cost("one decision (random, yield workload)", decision_cost);
  print_cost("one mutex iteration (random)", iteration_cost);
  const double calls = r.get("explore_call/empty_body", "calls/s");
  print_cost("one explore() call, empty body, 1 iteration", calls > 0 ? 1 / calls : 0);
  std::printf(" references\n");
  print_cost("Boost.Context switch", boost_switch);
  print_cost("ucontext swapcontext", ucontext_switch);
  print_cost("futex hand-off, one CPU", futex_same);
  print_cost("futex hand-off, two CPUs", futex_cross);
  print_cost("futex hand-off, unpinned", futex_unpinned);
  print_cost("condvar hand-off, one CPU", condvar_same);
  print_cost("condvar hand-off, unpinned", condvar_unpinned);
  std::printf(" ratios\n");
  print_ratio("decision / Boost.Context switch", decision_cost, boost_switch);
  print_ratio("ucontext switch / Boost.Context switch", ucontext_switch, boost_switch);
  print_ratio("futex hand-off one CPU / decision", futex_same, decision_cost);
  print_ratio("condvar hand-off unpinned / condvar one CPU", condvar_unpinned, condvar_same);
  // Above 1: the mutex model, thread creation and the per-iteration work cost
  // more than the decisions themselves would at the yield workload's price.
  print_ratio("mutex iteration / (its decisions x one decision)", iteration_cost,
              decisions_per_iteration * decision_cost);
  if (decisions_per_iteration > 0 && condvar_same > 0 && iterations_random > 0) {
    // What an OS-thread-per-operation design would pay for the same decisions.
    const double projected = 1 / (decisions_per_iteration * condvar_same);
    std::printf("  %-52s %13.0f/s (heddle: %.0fx)\n", "iterations/s at one condvar hand-off per decision",
                projected, iterations_random / projected);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  summarizing_reporter reporter(::isatty(STDOUT_FILENO) != 0);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  summarize(reporter);
  return 0;
}
