// Push-button figures (docs/performance.md), a small harness:
//
//   thread backend   decisions/s of 2 operations x 10,000 yields on the OS-thread
//                    backend, pinned to one CPU versus not (target pinned:
//                    >= 300,000/s); medians of 5 runs, wall time.
//   fork server      iterations/s of `heddle run` on a 2-thread C program
//                    (2 x 10 pthread mutex increments), random strategy, 2,000
//                    iterations; median of 5 runs, as the fork server counts it
//                    (target >= 2,000/s on one core), with the environment
//                    `heddle run` gives a program (LD_BIND_NOW=1).
//
//   pushbutton_bench <program> [fork-server-runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/thread_backend.hpp"
#include "engine/engine.hpp"
#include "strategies/strategies.hpp"
#include "workloads.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double decisions_per_second(bool pin) {
  using namespace heddle::detail;
  thread_backend threads(256 * 1024, pin);
  engine e(threads, {.max_steps = 21'000});
  const auto s = make_strategy("random");
  const std::function<void()> body = [] { heddle::bench::yield_ping_pong(10'000); };
  s->begin_iteration(0, 1);
  (void)e.run(*s, body);  // warm: the pool's threads exist
  std::vector<double> rates;
  for (int run = 0; run < 5; ++run) {
    s->begin_iteration(static_cast<std::uint64_t>(run) + 1, 1);
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t steps = e.run(*s, body).steps.size();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(static_cast<double>(steps) / seconds);
  }
  return median(rates);
}

double fork_server_iterations_per_second(const std::string& program, int runs) {
  std::vector<double> rates;
  for (int run = 0; run < runs; ++run) {
    // LD_BIND_NOW=1 as `heddle run` sets it (tools/heddle/pushbutton.cpp).
    const std::string command = "env LD_BIND_NOW=1 HEDDLE_RUN=1 HEDDLE_ITERATIONS=2000 HEDDLE_STRATEGY=random HEDDLE_OUT= "
                                "HEDDLE_RUN_FORMAT=json '" + program + "' 2>/dev/null";
    FILE* out = ::popen(command.c_str(), "r");
    std::string text;
    char buffer[4096];
    while (out != nullptr && std::fgets(buffer, sizeof buffer, out) != nullptr) text += buffer;
    if (out != nullptr) ::pclose(out);
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || j.value("status", "") != "passed") {
      std::fprintf(stderr, "the fork server run failed: %s\n", text.c_str());
      return 0;
    }
    rates.push_back(j.value("iterations_per_second", 0.0));
  }
  return median(rates);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pushbutton_bench <program> [fork-server-runs]\n");
    return 2;
  }
  const double pinned = decisions_per_second(true);
  const double unpinned = decisions_per_second(false);
  std::printf("thread backend, 2 x 10,000 yields, random: pinned %.0f decisions/s, unpinned %.0f decisions/s\n",
              pinned, unpinned);
  const double forks = fork_server_iterations_per_second(argv[1], argc > 2 ? std::atoi(argv[2]) : 5);
  std::printf("fork server, 2 threads x 10 mutex increments, random, 2000 iterations: %.0f iterations/s\n", forks);
  return 0;
}
