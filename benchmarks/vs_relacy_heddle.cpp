// vs_relacy_heddle: heddle's half of benchmarks/vs_relacy.sh, the side-by-side
// comparison of heddle's decision path with Relacy's (docs/performance.md,
// "Against Relacy"). vs_relacy_relacy.cpp runs the same workloads on Relacy;
// both print one line per figure in the same format:
//
//   <figure> <rate or seconds> <unit> [<extra>]
//
//   decisions/random     2 operations x 10,000 yields, `random`, fibers
//   decisions/pct3       the same, `pct:3`
//   iterations/mutex     2 threads x 10 increments of a plain int under
//                        heddle::mutex, HEDDLE_ASSERT(counter == 20), `random`
//   first_bug/mp         message passing with a relaxed flag under
//                        --memory-model rc11: one operation stores data then
//                        flag, both relaxed; the other sees the flag and asserts
//                        on data. Seconds of one explore() call until it returns
//                        the bug (report built, not printed, no trace written,
//                        no minimization), and the iterations it took; medians
//                        over BUG_RUNS calls (argument 2, default 201), each
//                        with its own seed.
//
// Rates are explore()'s own counts over the CPU time of this thread
// (CLOCK_THREAD_CPUTIME_ID), which runs every operation on fibers. Each figure
// is the median of REPS repetitions (argument 1, default 5).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "heddle/heddle.hpp"
#include "workloads.hpp"

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

// `per_call` iterations per explore() call; the rate counts decisions or
// iterations as the engine does.
double rate(const char* strategy, void (*body)(), std::uint64_t per_call, std::uint64_t max_steps, bool decisions,
            int reps, bool& ok) {
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    const double t0 = thread_seconds();
    const heddle::result res = heddle::explore(heddle::bench::quiet(per_call, strategy, max_steps), body);
    const double t = thread_seconds() - t0;
    if (!res || res.stats.iterations != per_call) ok = false;
    rates.push_back(static_cast<double>(decisions ? res.stats.steps_total : res.stats.iterations) / t);
  }
  return median(rates);
}

void yields_body() { heddle::bench::yield_ping_pong(yields); }
void mutex_body() { heddle::bench::mutex_increments(increments); }

void message_passing() {
  heddle::atomic<int> data{0};
  heddle::atomic<int> flag{0};
  heddle::thread writer{[&] {
    data.store(1, std::memory_order_relaxed);
    flag.store(1, std::memory_order_relaxed);
  }};
  heddle::thread reader{[&] {
    if (flag.load(std::memory_order_relaxed) == 1) HEDDLE_ASSERT(data.load(std::memory_order_relaxed) == 1);
  }};
  writer.join();
  reader.join();
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const int bug_runs = argc > 2 ? std::atoi(argv[2]) : 201;
  if (reps <= 0 || bug_runs <= 0) {
    std::fprintf(stderr, "usage: vs_relacy_heddle [REPS [BUG_RUNS]]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  bool ok = true;
  const std::uint64_t yield_steps = 2 * yields + 1'000;
  std::printf("decisions/random %.0f decisions/s\n", rate("random", yields_body, 20, yield_steps, true, reps, ok));
  std::printf("decisions/pct3 %.0f decisions/s\n", rate("pct:3", yields_body, 20, yield_steps, true, reps, ok));
  std::printf("iterations/mutex %.0f iterations/s\n",
              rate("random", mutex_body, 20'000, heddle::options{}.max_steps, false, reps, ok));
  std::vector<double> seconds;
  std::vector<double> found_at;
  for (int r = 0; r < bug_runs; ++r) {
    heddle::options o = heddle::bench::quiet(1'000'000, "random");
    o.seed = static_cast<std::uint64_t>(r) + 1;
    o.memory_model = heddle::memory_model::rc11;
    o.minimize = false;
    o.progress = false;
    const double t0 = thread_seconds();
    const heddle::result res = heddle::explore(o, message_passing);
    seconds.push_back(thread_seconds() - t0);
    if (!res.bug || res.bug->kind != heddle::bug_kind::assertion) {
      std::fprintf(stderr, "vs_relacy_heddle: heddle did not find the message-passing bug (seed %llu)\n",
                   static_cast<unsigned long long>(o.seed));
      return 1;
    }
    found_at.push_back(static_cast<double>(res.stats.iterations));
  }
  std::printf("first_bug/mp %.9f s %.0f\n", median(seconds), median(found_at));
  if (!ok) {
    std::fprintf(stderr, "vs_relacy_heddle: a workload found a bug or ran short\n");
    return 1;
  }
  return 0;
}
