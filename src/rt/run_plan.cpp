// See run_plan.hpp.
#include "rt/run_plan.hpp"

#include <sys/personality.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rt/known_libraries.hpp"
#include "rt/uncontrolled_inputs.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/overrides.hpp"
#include "runner/replay_setup.hpp"
#include "runner/suppressions.hpp"
#include "strategies/strategies.hpp"

// In libheddle-rt, not in every binary that carries these sources (weak):
// whether the program is built with heddle's instrumentation
// (tsan_runtime.cpp).
namespace heddle::rt::tsan {
bool instrumented() noexcept __attribute__((weak));
}

namespace heddle::rt {

namespace fs = std::filesystem;

namespace {

std::string self_path(const char* fallback) {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(fallback) : p.string();
}

}  // namespace

run_options run_options_of(const std::string& trace_file) {
  run_options r;
  std::ifstream in(trace_file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("options") || !j["options"].is_object()) return r;  // a compact trace
  const nlohmann::json& o = j["options"];
  if (o.contains("check") && o["check"].is_string()) r.check = o["check"];
  if (o.contains("address_randomization") && o["address_randomization"].is_string())
    r.address_randomization = o["address_randomization"];
  if (o.contains("clock_realtime_ns") && o["clock_realtime_ns"].is_number_integer() &&
      o.contains("clock_monotonic_ns") && o["clock_monotonic_ns"].is_number_integer())
    r.clocks = clock_bases{o["clock_realtime_ns"].get<std::int64_t>(), o["clock_monotonic_ns"].get<std::int64_t>()};
  return r;
}

// This process's: the fork server's children inherit it.
std::string address_randomization() {
  const int persona = ::personality(0xffffffff);
  return persona != -1 && (persona & ADDR_NO_RANDOMIZE) != 0 ? "off" : "on";
}

// The likely cause of a divergence, as far as the fork server can see it:
// what the program read that no run reproduces, addresses that moved, else
// what heddle does not control. `trace_file`: the trace a replay follows
// (empty for --check-determinism, whose runs share one address layout).
std::string divergence_cause(const std::string& trace_file, std::uint32_t inputs) {
  const std::string read = describe_uncontrolled_inputs(inputs);
  if (!read.empty()) return "Likely cause: " + read;
  const std::string recorded = trace_file.empty() ? "off" : run_options_of(trace_file).address_randomization;
  if (recorded == "on")
    return "Likely cause: the trace was recorded with address randomization on, and the program depends on "
           "addresses (it hashes or orders by pointer); record it again with heddle run, which turns it off";
  if (address_randomization() == "on")
    return "Likely cause: address randomization is on in this run (it could not be turned off), and the program "
           "may depend on addresses";
  return "Likely cause: the program depends on something heddle does not control (input, files, an uninstrumented "
         "spin on memory, /dev/urandom, a static left over from before main, the blocks its threads allocate when "
         "the trace was recorded on the other backend)";
}

run_plan make_plan(const program_entry& program) {
  run_plan plan;
  plan.opts = detail::with_overrides({});
  plan.program_path = self_path(program.argv[0]);
  for (int i = 1; i < program.argc; ++i) plan.arguments.emplace_back(program.argv[i]);
  plan.test = "run:" + fs::path(plan.program_path).filename().string();
  options& o = plan.opts;
  // The OS-thread backend unless HEDDLE_BACKEND (heddle run --backend) asks
  // for fibers; a replay runs on the backend its trace was recorded on.
  const bool backend_given = detail::backend_requested(o);
  if (!backend_given) o.backend = "threads";
  // A push-button run always has a watchdog: 10 s unless HEDDLE_ITERATION_TIMEOUT says otherwise (0: none).
  if (std::getenv("HEDDLE_ITERATION_TIMEOUT") == nullptr) o.iteration_timeout = std::chrono::seconds(10);
  if (const char* check = std::getenv("HEDDLE_CHECK"); check != nullptr) plan.check = check;
  if (!o.replay.empty()) {
    trace recorded = detail::load_replay(o, plan.test);
    const run_options recorded_run = run_options_of(o.replay);
    plan.check = recorded_run.check;
    // The replay's clocks start where the run's did.
    if (recorded_run.clocks) set_clock_bases(*recorded_run.clocks);
    if (!backend_given) o.backend = recorded.header.backend;
    // HEDDLE_REPLAY_REPEAT=N replays the trace N times, each in a new child
    // (the harness's check that a bug replays every time).
    o.iterations = 1;
    if (const char* repeat = std::getenv("HEDDLE_REPLAY_REPEAT"); repeat != nullptr)
      o.iterations = std::max<std::uint64_t>(1, detail::parse_unsigned(repeat, "HEDDLE_REPLAY_REPEAT"));
    plan.first_iteration = recorded.header.iteration;
    // A trace from before the expected status was recorded: 0 was expected.
    if (o.expect_exit < 0 && recorded.found && recorded.found->kind == bug_kind::exit_code) o.expect_exit = 0;
    plan.expected = recorded.found;
    auto r = std::make_unique<detail::replay_strategy>(std::move(recorded.steps), recorded.header.strategy);
    plan.replaying = r.get();
    plan.chosen = std::move(r);
  } else {
    // The child tells the parent's strategy what the engine tells its copy:
    // under rc11, each atomic access and the execution graph (fork_channel.hpp).
    plan.chosen = detail::make_strategy(
        o.strategy, {.fair_after = o.fair_after, .weak_memory = o.memory_model == memory_model::rc11});
    // libgomp and liburcu synchronize their threads with atomics the
    // instrumentation does not see: the race detector found no order between
    // two critical sections, or between a node's fields and the reader that
    // found it by rcu_dereference, and reported races on correct programs
    // (tests/thirdparty: thirdparty.openmp, thirdparty.urcu). Off for an
    // instrumented program that loads one (or libtbb, libpthreadpool: the
    // table in known_libraries.cpp), unless asked for; accesses stay
    // scheduling points, so the program's own checks still judge each
    // interleaving, and the verdict says races were not checked.
    if (tsan::instrumented != nullptr && o.detect_races && !detail::option_given("detect_races") &&
        tsan::instrumented()) {
      if (const known_library library = invisible_synchronization(); library.path != nullptr) {
        o.detect_races = false;
        plan.races_off = fmt::format("data races: the race detector was off, since {} orders its threads with atomics "
                                     "that are not instrumented (each access was still a scheduling point, and the "
                                     "program's own checks judged every interleaving; --detect-races true turns it on)",
                                     library.what);
        std::fprintf(stderr,
                     "heddle: warning: the race detector is off: %s, %s, orders its threads with atomics that are "
                     "not instrumented, so it would report the accesses %s order as races (--detect-races true "
                     "turns it on)\n",
                     library.what, library.path, library.hidden_order);
      }
    }
  }
  detail::set_active_suppressions(o);
  return plan;
}

trace_header header_of(const run_plan& plan, std::uint64_t iteration) {
  trace_header h = detail::make_header(plan.opts, {plan.test, plan.program_path}, plan.chosen->describe(), iteration);
  h.arguments = plan.arguments;
  return h;
}

}  // namespace heddle::rt
