// vs_relacy_relacy: Relacy's half of benchmarks/vs_relacy.sh, the side-by-side
// comparison of heddle's decision path with Relacy's (docs/performance.md,
// "Against Relacy"). It is compiled by that script, and only when RELACY_DIR
// names a checkout of github.com/dvyukov/relacy (never vendored here):
//
//   g++ -std=c++20 -O2 -DNDEBUG -I$RELACY_DIR vs_relacy_relacy.cpp
//
// It runs the same workloads as vs_relacy_heddle.cpp, with Relacy's own
// primitives, and prints one line per figure in the same format:
//
//   <figure> <rate or seconds> <unit> [<extra>]
//
//   decisions/random     2 threads x 10,000 rl::yield, random_scheduler
//   decisions/bound3     the same, context_bound_scheduler with context_bound 3
//                        (Relacy's nearest to PCT with depth 3: a systematic
//                        search bounded to 3 preemptions)
//   iterations/mutex     2 threads x 10 increments of a plain int under rl::mutex,
//                        RL_ASSERT(counter == 20) in after(), random_scheduler
//   first_bug/mp         message passing with a relaxed flag under Relacy's
//                        relaxed model: thread 0 stores data then flag, both
//                        relaxed; thread 1 sees the flag and asserts on data.
//                        Seconds of one rl::simulate call until it reports the
//                        bug (its replay for the history included, output to a
//                        null stream), and the iterations it took; medians
//                        over BUG_RUNS runs (argument 2, default 201), each
//                        from a different starting iteration.
//
//   vs_relacy_relacy profile yields|mutex ITERATIONS: one untimed run, for
//                        callgrind (instructions per decision or iteration)
//
// Rates are over the CPU time of this thread (CLOCK_THREAD_CPUTIME_ID): the
// machine is shared, and CPU time leaves out the time others took. Each figure
// is the median of REPS repetitions (argument 1, default 5).
#include <relacy/relacy.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace {

constexpr int yields = 10'000;
constexpr int increments = 10;

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct null_buffer : std::streambuf {
  int overflow(int c) override { return c; }
};
null_buffer null_buf;
std::ostream null_out(&null_buf);

// The measured window: from the first iteration's before() to the before() of
// iteration `stop_at`, which ends the run by failing. Relacy's tree-search
// schedulers (context_bound_scheduler) run until their search space is done
// and ignore iteration_count, so the run is ended from inside; Relacy then
// replays that last iteration for its history, outside the window.
struct window {
  unsigned stop_at = 0;
  unsigned seen = 0;
  double start = 0;
  double end = 0;
  // Called from before(); false when the run must end here.
  bool tick() {
    ++seen;
    if (seen == 1) start = thread_seconds();
    if (seen < stop_at) return true;
    if (seen == stop_at) end = thread_seconds();
    return false;
  }
  double iterations() const { return stop_at - 1.0; }
};
window measured;

struct yields_test : rl::test_suite<yields_test, 2> {
  void before() { RL_ASSERT(measured.tick()); }
  void thread(unsigned) {
    for (int i = 0; i < yields; ++i) rl::yield(1, $);
  }
};

struct mutex_test : rl::test_suite<mutex_test, 2> {
  rl::mutex m;
  int counter = 0;
  void before() {
    counter = 0;
    RL_ASSERT(measured.tick());
  }
  void thread(unsigned) {
    for (int i = 0; i < increments; ++i) {
      m.lock($);
      ++counter;
      m.unlock($);
    }
  }
  void after() { RL_ASSERT(counter == 2 * increments); }
};

struct message_passing_test : rl::test_suite<message_passing_test, 2> {
  rl::atomic<int> data;
  rl::atomic<int> flag;
  void before() {
    data($).store(0, rl::memory_order_relaxed);
    flag($).store(0, rl::memory_order_relaxed);
  }
  void thread(unsigned index) {
    if (index == 0) {
      data($).store(1, rl::memory_order_relaxed);
      flag($).store(1, rl::memory_order_relaxed);
    } else if (flag($).load(rl::memory_order_relaxed) == 1) {
      RL_ASSERT(data($).load(rl::memory_order_relaxed) == 1);
    }
  }
};

rl::test_params params_for(rl::scheduler_type_e type, unsigned iterations) {
  rl::test_params p;
  p.iteration_count = iterations;
  p.search_type = type;
  p.context_bound = 3;
  p.execution_depth_limit = 2 * yields + 1'000;
  p.output_stream = &null_out;
  p.progress_stream = &null_out;
  return p;
}

// Decisions of one iteration of yields_test: each rl::yield is one call to the
// scheduler (Relacy's context::schedule); the threads' ends add one each.
constexpr double decisions_per_yield_iteration = 2.0 * yields + 2;

template <typename Test>
double rate(rl::scheduler_type_e type, unsigned iterations, double per_iteration, int reps, bool& ok) {
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    rl::test_params p = params_for(type, iterations + 10);
    measured = window{.stop_at = iterations + 1};
    rl::simulate<Test>(p);
    // The run must have ended at the window's end, not at a failure of its own.
    if (measured.seen < measured.stop_at || measured.end <= measured.start) ok = false;
    rates.push_back(measured.iterations() * per_iteration / (measured.end - measured.start));
  }
  return median(rates);
}

}  // namespace

// `vs_relacy_relacy profile yields|mutex ITERATIONS`: one run of ITERATIONS
// iterations under random_scheduler, untimed, for callgrind (instructions per
// decision: the run at 40 minus the run at 20, over 20 x 20,002 decisions; as
// heddle_profile on heddle's side, docs/performance.md).
int profile(const char* workload, const char* count) {
  const int iterations = std::atoi(count);
  const std::string w = workload;
  if (iterations <= 0 || (w != "yields" && w != "mutex")) {
    std::fprintf(stderr, "usage: vs_relacy_relacy profile yields|mutex ITERATIONS\n");
    return 2;
  }
  measured = window{.stop_at = ~0u};  // before() never ends the run
  rl::test_params p = params_for(rl::random_scheduler_type, static_cast<unsigned>(iterations));
  const bool passed = w == "yields" ? rl::simulate<yields_test>(p) : rl::simulate<mutex_test>(p);
  std::printf("%s: %d iterations\n", workload, iterations);
  return passed ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "profile") return profile(argv[2], argv[3]);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const int bug_runs = argc > 2 ? std::atoi(argv[2]) : 201;
  if (reps <= 0 || bug_runs <= 0) {
    std::fprintf(stderr, "usage: vs_relacy_relacy [REPS [BUG_RUNS]]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  bool ok = true;
  std::printf("decisions/random %.0f decisions/s\n",
              rate<yields_test>(rl::random_scheduler_type, 20, decisions_per_yield_iteration, reps, ok));
  std::printf("decisions/bound3 %.0f decisions/s\n",
              rate<yields_test>(rl::fair_context_bound_scheduler_type, 20, decisions_per_yield_iteration, reps, ok));
  std::printf("iterations/mutex %.0f iterations/s\n",
              rate<mutex_test>(rl::random_scheduler_type, 20'000, 1.0, reps, ok));
  // Relacy's random scheduler seeds iteration i with i, so a run from iteration 1
  // is always the same sample; each run here starts at its own iteration
  // (Relacy's saved-state string), a different sample each, as heddle's runs
  // take different seeds.
  std::vector<double> seconds;
  std::vector<double> found_at;
  for (int r = 0; r < bug_runs; ++r) {
    rl::test_params p = params_for(rl::random_scheduler_type, 2'000'000'000);
    const unsigned first = 1 + static_cast<unsigned>(r) * 100'000;
    p.initial_state = std::to_string(first);
    const double t0 = thread_seconds();
    const bool passed = rl::simulate<message_passing_test>(p);
    seconds.push_back(thread_seconds() - t0);
    if (passed) {
      std::fprintf(stderr, "vs_relacy_relacy: Relacy did not find the message-passing bug\n");
      return 1;
    }
    found_at.push_back(static_cast<double>(p.stop_iteration - first + 1));
  }
  std::printf("first_bug/mp %.9f s %.0f\n", median(seconds), median(found_at));
  if (!ok) {
    std::fprintf(stderr, "vs_relacy_relacy: a workload failed or ran no iteration\n");
    return 1;
  }
  return 0;
}
