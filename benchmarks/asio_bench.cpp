// Asio handlers under control (issue 17, docs/performance.md "Asio (issue 17)"):
// handlers posted and run per second through heddle::asio::io_context, against
// the same program on a real asio::io_context (no control: the floor) in the
// same run.
//
//   post_run_1    one iteration posts 1,000 handlers, one run() thread runs them
//   post_run_2    the same with two run() threads (main and a heddle::thread)
//   strand_2      1,000 handlers through a strand, two run() threads
//   real_asio     1,000 asio::post + one io_context::run(), real Asio, no heddle
// Each line is the median of 7 rounds of 200 iterations, as handlers/s and as
// ns per handler (a posted handler costs a `send` and a `receive` decision),
// over the CPU time of this thread (every line runs on it alone: the fibers of
// an iteration, and real Asio's one run() thread), which leaves out the time
// other processes of a shared machine take from it.
// Usage: asio_bench [rounds]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <time.h>

#include <asio/io_context.hpp>

#include "heddle/asio.hpp"
#include "heddle/explore.hpp"
#include "heddle/thread.hpp"

namespace {

constexpr int handlers = 1000;
constexpr std::uint64_t iterations = 200;

heddle::options quiet() {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = "random";
  o.print_report = false;
  o.progress = false;
  o.out.clear();
  o.max_steps = 100'000;
  return o;
}

void post_and_run(int run_threads, bool strand) {
  heddle::asio::io_context ctx;
  auto s = asio::make_strand(ctx);
  int ran = 0;
  for (int i = 0; i < handlers; ++i) {
    if (strand) {
      asio::post(s, [&] { ++ran; });
    } else {
      asio::post(ctx, [&] { ++ran; });
    }
  }
  if (run_threads == 2) {
    heddle::thread second([&] { ctx.run(); });
    ctx.run();
    second.join();
  } else {
    ctx.run();
  }
  HEDDLE_ASSERT(ran == handlers);
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// CPU seconds of one round of `iterations` iterations.
double controlled_round(const std::function<void()>& body) {
  const double start = thread_cpu_seconds();
  const heddle::result r = heddle::explore(quiet(), body);
  const double took = thread_cpu_seconds() - start;
  if (!r || r.stats.iterations != iterations || r.stats.max_steps_hits != 0) {
    std::fprintf(stderr, "asio_bench: the benchmark program failed: %s\n", r.verdict().c_str());
    std::exit(1);
  }
  return took;
}

double real_round() {
  const double start = thread_cpu_seconds();
  for (std::uint64_t it = 0; it < iterations; ++it) {
    asio::io_context ctx(1);
    int ran = 0;
    for (int i = 0; i < handlers; ++i) asio::post(ctx, [&] { ++ran; });
    ctx.run();
    if (ran != handlers) std::exit(1);
  }
  return thread_cpu_seconds() - start;
}

void report(const char* name, std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const double per_second = static_cast<double>(handlers) * static_cast<double>(iterations) / median;
  std::printf("%-12s %12.0f handlers/s %8.1f ns/handler\n", name, per_second, 1e9 / per_second);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  if (rounds <= 0) {
    std::fprintf(stderr, "asio_bench: rounds must be a positive number\n");
    return 2;
  }
  std::vector<double> one, two, strand, real;
  for (int r = 0; r < rounds; ++r) {  // interleaved, so load changes hit every line alike
    one.push_back(controlled_round([] { post_and_run(1, false); }));
    two.push_back(controlled_round([] { post_and_run(2, false); }));
    strand.push_back(controlled_round([] { post_and_run(2, true); }));
    real.push_back(real_round());
  }
  report("post_run_1", one);
  report("post_run_2", two);
  report("strand_2", strand);
  report("real_asio", real);
  return 0;
}
