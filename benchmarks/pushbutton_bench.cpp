// Push-button figures (docs/performance.md), a small harness:
//
//   thread backend   decisions/s of 2 operations x 10,000 yields on the OS-thread
//                    backend, pinned to one CPU versus not (target pinned:
//                    >= 300,000/s); medians of 5 runs, wall time.
//   fork server      iterations/s of `heddle run` on a 2-thread C program, on
//                    the OS-thread backend (the default) and on fibers
//                    (--backend fibers), runs of the two alternated
//                    (2 x 10 pthread mutex increments), random strategy, 2,000
//                    iterations; median of 5 runs, as the fork server counts it
//                    (target >= 2,000/s on one core), with the environment
//                    `heddle run` gives a program (LD_BIND_NOW=1); and the CPU
//                    time per iteration of the fork server and its children.
//   fixed costs      with a floor program (pushbutton_floor.c): the same for a
//                    main that returns at once and for one that starts and
//                    joins one thread, and the CPU time of a bare fork, _exit
//                    and waitpid of a process with the same libraries (what no
//                    fork server can go below on this machine).
//
//   memory model     with an atomics program (pushbutton_atomics.c): the fork
//                    server's iterations/s and CPU per iteration under
//                    --memory-model sc and rc11, runs of the two alternated, for
//                    the program's acquire/release orders and for all seq_cst.
//
//   pushbutton_bench <program> [fork-server-runs] [floor-program]
//   pushbutton_bench --memory-model <atomics-program> [runs]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
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

struct fork_server_figures {
  double iterations_per_second = 0;      // wall time, as the fork server counts it
  double cpu_us_per_iteration = 0;       // parent and children, user + system
};

double cpu_seconds_of_children() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// One run of 2,000 iterations on `backend`: iterations/s as the fork server
// counts them, and the CPU time per iteration of the fork server and its
// children, which it waits for (the figure to compare on a loaded machine:
// other processes stretch the wall time, much less the CPU time the run
// itself takes). Zeros when the run failed.
fork_server_figures fork_server_run(const std::string& program, const std::string& backend,
                                    const std::string& arguments, const std::string& memory_model = "sc") {
  constexpr int iterations = 2000;
  // LD_BIND_NOW=1 as `heddle run` sets it (tools/heddle/pushbutton.cpp).
  const std::string command = "env LD_BIND_NOW=1 HEDDLE_RUN=1 HEDDLE_MEMORY_MODEL=" + memory_model +
                              " HEDDLE_BACKEND=" + backend +
                              " HEDDLE_ITERATIONS=" + std::to_string(iterations) +
                              " HEDDLE_STRATEGY=random HEDDLE_OUT= HEDDLE_RUN_FORMAT=json '" + program + "' " +
                              arguments + " 2>/dev/null";
  const double cpu_before = cpu_seconds_of_children();
  FILE* out = ::popen(command.c_str(), "r");
  std::string text;
  char buffer[4096];
  while (out != nullptr && std::fgets(buffer, sizeof buffer, out) != nullptr) text += buffer;
  if (out != nullptr) ::pclose(out);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || j.value("status", "") != "passed") {
    std::fprintf(stderr, "the fork server run failed: %s\n", text.c_str());
    return {};
  }
  return {j.value("iterations_per_second", 0.0), (cpu_seconds_of_children() - cpu_before) * 1e6 / iterations};
}

// Medians over `runs` runs on each backend, the two alternated so that both
// see the same load.
std::pair<fork_server_figures, fork_server_figures> measure_fork_server(const std::string& program, int runs,
                                                                        const std::string& arguments = "") {
  std::vector<double> rates[2], cpu[2];
  const char* const backends[2] = {"threads", "fibers"};
  for (int run = 0; run < runs; ++run) {
    for (int b = 0; b < 2; ++b) {
      const fork_server_figures f = fork_server_run(program, backends[b], arguments);
      rates[b].push_back(f.iterations_per_second);
      cpu[b].push_back(f.cpu_us_per_iteration);
    }
  }
  return {{median(rates[0]), median(cpu[0])}, {median(rates[1]), median(cpu[1])}};
}

// The same program under sc and under rc11, runs alternated: medians.
std::pair<fork_server_figures, fork_server_figures> measure_memory_models(const std::string& program, int runs,
                                                                          const std::string& arguments) {
  std::vector<double> rates[2], cpu[2];
  const char* const models[2] = {"sc", "rc11"};
  for (int run = 0; run < runs; ++run) {
    for (int m = 0; m < 2; ++m) {
      const fork_server_figures f = fork_server_run(program, "threads", arguments, models[m]);
      rates[m].push_back(f.iterations_per_second);
      cpu[m].push_back(f.cpu_us_per_iteration);
    }
  }
  return {{median(rates[0]), median(cpu[0])}, {median(rates[1]), median(cpu[1])}};
}

// The floor program's bare fork loop (pushbutton_floor.c): median over `runs`
// runs of 2,000 forks of the CPU time of one.
double fork_floor_us(const std::string& floor_program, int runs) {
  std::vector<double> cpu;
  for (int run = 0; run < runs; ++run) {
    FILE* out = ::popen(("'" + floor_program + "' forks 2000").c_str(), "r");
    char line[64] = {};
    if (out == nullptr) return 0;
    if (std::fgets(line, sizeof line, out) != nullptr) cpu.push_back(std::atof(line));
    ::pclose(out);
  }
  return cpu.empty() ? 0 : median(cpu);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pushbutton_bench <program> [fork-server-runs] [floor-program]\n       pushbutton_bench --memory-model <atomics-program> [runs]\n");
    return 2;
  }
  if (std::string(argv[1]) == "--memory-model") {
    if (argc < 3) {
      std::fprintf(stderr, "usage: pushbutton_bench --memory-model <atomics-program> [runs]\n");
      return 2;
    }
    const int model_runs = argc > 3 ? std::atoi(argv[3]) : 5;
    for (const char* orders : {"", "seq_cst"}) {
      const auto [sc, rc11] = measure_memory_models(argv[2], model_runs, orders);
      std::printf("memory model, SPSC ring of C11 atomics (%s), 2000 iterations: sc %.0f iterations/s, %.0f us of CPU "
                  "per iteration; rc11 %.0f iterations/s, %.0f us (CPU ratio rc11/sc %.2f)\n",
                  *orders == '\0' ? "acquire/release" : "all seq_cst", sc.iterations_per_second,
                  sc.cpu_us_per_iteration, rc11.iterations_per_second, rc11.cpu_us_per_iteration,
                  sc.cpu_us_per_iteration > 0 ? rc11.cpu_us_per_iteration / sc.cpu_us_per_iteration : 0.0);
    }
    return 0;
  }
  const double pinned = decisions_per_second(true);
  const double unpinned = decisions_per_second(false);
  std::printf("thread backend, 2 x 10,000 yields, random: pinned %.0f decisions/s, unpinned %.0f decisions/s\n",
              pinned, unpinned);
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  const auto [threads, fibers] = measure_fork_server(argv[1], runs);
  for (const auto& [name, f] : {std::pair{"threads", threads}, std::pair{"fibers", fibers}})
    std::printf("fork server (--backend %s), 2 threads x 10 mutex increments, random, 2000 iterations: %.0f "
                "iterations/s; %.0f us of CPU per iteration (%.0f iterations per CPU-second)\n",
                name, f.iterations_per_second, f.cpu_us_per_iteration,
                f.cpu_us_per_iteration > 0 ? 1e6 / f.cpu_us_per_iteration : 0.0);
  if (argc > 3) {
    const auto [empty, empty_fibers] = measure_fork_server(argv[3], runs);
    const auto [thread, thread_fibers] = measure_fork_server(argv[3], runs, "thread");
    std::printf("fixed costs: fork server, empty main: %.0f iterations/s, %.0f us of CPU per iteration (fibers %.0f, "
                "%.0f us); main with one thread: %.0f iterations/s, %.0f us (fibers %.0f, %.0f us); bare fork + _exit "
                "+ waitpid: %.0f us of CPU\n",
                empty.iterations_per_second, empty.cpu_us_per_iteration, empty_fibers.iterations_per_second,
                empty_fibers.cpu_us_per_iteration, thread.iterations_per_second, thread.cpu_us_per_iteration,
                thread_fibers.iterations_per_second, thread_fibers.cpu_us_per_iteration, fork_floor_us(argv[3], runs));
  }
  return 0;
}
