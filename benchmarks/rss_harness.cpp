// heddle_rss: does memory stay flat over a long run? (figure 3 of the
// performance issue; not a Google Benchmark, a plain harness.)
//
// Runs the mutex workload (2 threads x 10 increments under heddle::mutex, random
// strategy) for 1,000,000 iterations in ONE explore() call, as a real run would,
// and prints the resident set size from /proc/self/statm at the start, after a
// warm-up of 10,000 iterations, every 100,000 iterations, and at the end. The
// body samples RSS itself at those iteration counts, so the numbers come from
// inside the run. Exit code 0 unless the run found a bug; growth is reported,
// not judged: docs/performance.md says what counts as flat.
//
//   heddle_rss [iterations]   (default 1000000)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "pinning.hpp"
#include "workloads.hpp"

namespace {

long resident_kib() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long size = 0;
  long resident = 0;
  const int read = std::fscanf(f, "%ld %ld", &size, &resident);
  std::fclose(f);
  return read == 2 ? resident * (::sysconf(_SC_PAGESIZE) / 1024) : -1;
}

long peak_kib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

struct sample {
  unsigned long long iteration;
  long rss_kib;
};

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000ull;
  const unsigned long long warm_up = 10'000;
  const unsigned long long every = 100'000;
  const heddle::bench::pinned_to_cpu pin;

  std::vector<sample> samples;
  samples.reserve(total / every + 4);  // no allocation from sampling during the run
  const long at_start = resident_kib();
  unsigned long long iteration = 0;

  const heddle::result r = heddle::explore(heddle::bench::quiet(total, "random"), [&] {
    heddle::bench::mutex_increments(10);
    ++iteration;
    if (iteration == warm_up || iteration % every == 0 || iteration == total)
      samples.push_back({iteration, resident_kib()});
  });
  const long at_end = resident_kib();

  std::printf("heddle_rss: %llu iterations of 2 threads x 10 mutex increments (random, CPU %d)\n",
              static_cast<unsigned long long>(r.stats.iterations), pin.cpu());
  std::printf("  %-28s %10ld KiB\n", "RSS at start", at_start);
  long after_warm_up = -1;
  for (const sample& s : samples) {
    if (s.iteration == warm_up) after_warm_up = s.rss_kib;
    std::printf("  RSS after %-18llu %10ld KiB%s\n", s.iteration, s.rss_kib,
                s.iteration == warm_up ? "   (end of warm-up)" : "");
  }
  std::printf("  %-28s %10ld KiB\n", "RSS after explore() returned", at_end);
  std::printf("  %-28s %10ld KiB\n", "peak RSS (getrusage)", peak_kib());
  if (after_warm_up > 0 && !samples.empty())
    std::printf("  %-28s %+10ld KiB   (last in-run sample minus end of warm-up)\n", "growth after warm-up",
                samples.back().rss_kib - after_warm_up);
  std::printf("  %-28s %10.0f/s   (wall clock, sampling included)\n", "iterations", r.stats.iterations_per_second());
  if (!r) {
    std::fprintf(stderr, "heddle_rss: the run found a bug, the workload is broken:\n%s\n", r.report.c_str());
    return 1;
  }
  return 0;
}
