// explore(): runs iterations of a test body under a strategy until a bug, the
// iteration count, the time budget, or an exhausted search; or replays a trace.
//
// A failing iteration's trace is written (atomically: temp file, then rename)
// before the report is printed, so whatever happens next the schedule is kept.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <unistd.h>

#include "backends/fiber_backend.hpp"
#include "engine/engine.hpp"
#include "heddle/explore.hpp"
#include "heddle/version.hpp"
#include "runner/crash_guard.hpp"
#include "runner/overrides.hpp"
#include "runner/report.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle {

double statistics::iterations_per_second() const {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  return seconds > 0 ? static_cast<double>(iterations) / seconds : 0.0;
}

namespace {

namespace fs = std::filesystem;

std::string directory_name(std::string_view test) {
  std::string name;
  for (char c : test) name += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return name.empty() ? "test" : name;
}

// Writes `text` to the first free `<dir>/<stem>-N<extension>`; returns the path.
std::string write_new_file(const fs::path& dir, std::string_view stem, std::string_view extension,
                           const std::string& text) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("cannot create output directory '{}': {}", dir.string(), ec.message()));
  for (unsigned n = 1;; ++n) {
    const fs::path target = dir / fmt::format("{}-{}{}", stem, n, extension);
    if (fs::exists(target)) continue;
    const fs::path temporary = dir / fmt::format(".{}-{}{}.{}.tmp", stem, n, extension, ::getpid());
    {
      std::ofstream out(temporary, std::ios::binary);
      out << text;
      if (!out.flush()) throw usage_error(fmt::format("cannot write '{}'", temporary.string()));
    }
    // link() fails if another process took the name meanwhile: try the next one.
    if (::link(temporary.c_str(), target.c_str()) == 0) {
      fs::remove(temporary, ec);
      return target.string();
    }
    fs::remove(temporary, ec);
    if (errno != EEXIST) throw usage_error(fmt::format("cannot write '{}'", target.string()));
  }
}

trace_header make_header(const options& o, const test_identity& id, std::string strategy, std::uint64_t iteration) {
  trace_header h;
  h.heddle_version = version;
  h.program = id.program;
  h.test = id.test;
  h.strategy = std::move(strategy);
  h.seed = o.seed;
  h.iteration = iteration;
  h.max_steps = o.max_steps;
  h.fail_on_max_steps = o.fail_on_max_steps;
  h.spurious_wakeups = o.spurious_wakeups;
  h.spurious_cas_failures = o.spurious_cas_failures;
  return h;
}

}  // namespace

result explore(const options& given, std::function<void()> body, const test_identity& id) {
  options opts = detail::with_overrides(given);
  std::unique_ptr<detail::strategy> chosen;
  detail::replay_strategy* replaying = nullptr;
  std::uint64_t first_iteration = 0;
  std::optional<bug> expected;

  if (!opts.replay.empty()) {
    trace recorded;
    try {
      recorded = load_trace(opts.replay);
    } catch (const trace_error& e) {
      throw usage_error(e.what());
    }
    if (recorded.header.test != id.test)
      throw usage_error(fmt::format("trace '{}' was recorded for test '{}', not '{}'", opts.replay,
                                    recorded.header.test, id.test));
    // The trace's options, not the caller's, decide how the iteration runs.
    opts.seed = recorded.header.seed;
    opts.iterations = 1;
    opts.max_steps = recorded.header.max_steps;
    opts.fail_on_max_steps = recorded.header.fail_on_max_steps;
    opts.spurious_wakeups = recorded.header.spurious_wakeups;
    opts.spurious_cas_failures = recorded.header.spurious_cas_failures;
    first_iteration = recorded.header.iteration;
    expected = recorded.found;
    auto r = std::make_unique<detail::replay_strategy>(std::move(recorded.steps), recorded.header.strategy);
    replaying = r.get();
    chosen = std::move(r);
  } else {
    chosen = detail::make_strategy(opts.strategy, {.fair_after = opts.fair_after});
  }

  detail::fiber_backend fibers(opts.stack_size);
  detail::engine engine(fibers, {opts.max_steps, opts.fail_on_max_steps, opts.spurious_wakeups,
                                 opts.spurious_cas_failures});
  detail::crash_guard guard(engine, make_header(opts, id, chosen->describe(), 0),
                            opts.out.empty() ? std::string{} : (fs::path(opts.out) / directory_name(id.test)).string(),
                            replaying != nullptr ? opts.replay : std::string{});

  result res;
  statistics& stats = res.stats;
  stats.steps_min = std::numeric_limits<std::uint64_t>::max();
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = opts.time_budget.count() > 0 ? started + opts.time_budget
                                                     : std::chrono::steady_clock::time_point::max();

  for (std::uint64_t n = 0; n < opts.iterations; ++n) {
    const std::uint64_t index = first_iteration + n;
    chosen->begin_iteration(index, detail::iteration_seed(opts.seed, index));
    guard.begin_iteration(index);
    const detail::iteration_outcome& outcome = engine.run(*chosen, body);
    guard.end_iteration();
    const std::uint64_t steps = outcome.steps.size();
    chosen->end_iteration({steps, outcome.found.has_value(), outcome.hit_max_steps});

    ++stats.iterations;
    stats.steps_total += steps;
    stats.steps_min = std::min(stats.steps_min, steps);
    stats.steps_max = std::max(stats.steps_max, steps);
    stats.max_enabled = std::max(stats.max_enabled, outcome.max_enabled);
    stats.max_steps_hits += outcome.hit_max_steps ? 1 : 0;
    stats.buggy_iterations += outcome.found ? 1 : 0;

    if (replaying != nullptr) {
      if (outcome.stopped) {
        res.divergence = *outcome.stopped;
      } else if (!outcome.found && replaying->remaining() > 0) {
        res.divergence = fmt::format("the program finished after {} steps, but the trace has {} more", steps,
                                     replaying->remaining());
      } else if (expected && (!outcome.found || outcome.found->kind != expected->kind)) {
        res.divergence = fmt::format("the trace recorded a {} bug, but the replay ended with {}",
                                     to_string(expected->kind),
                                     outcome.found ? std::string(to_string(outcome.found->kind)) + " bug" : "no bug");
      }
      if (res.divergence) {
        res.divergence = fmt::format("replay diverged: {}. Likely cause: the test depends on something heddle "
                                     "does not control (real time, addresses, unseeded randomness, or state left "
                                     "over from an earlier iteration)",
                                     *res.divergence);
      }
    }

    if (outcome.found) {
      res.bug = outcome.found;
      res.trace.header = make_header(opts, id, chosen->describe(), index);
      res.trace.steps = outcome.trace_steps();
      res.trace.found = outcome.found;
      if (!opts.out.empty() && replaying == nullptr)
        res.trace_file = write_new_file(fs::path(opts.out) / directory_name(id.test), "bug", ".json", to_json(res.trace));
      else if (replaying != nullptr)
        res.trace_file = opts.replay;
      detail::report_context ctx{id.test, id.program, res.trace_file, index, stats.iterations, replaying != nullptr};
      res.report = detail::format_report(*res.bug, res.trace, outcome, ctx);
      if (opts.print_report) std::fputs(res.report.c_str(), stderr);
      if (opts.stop_on_first_bug) break;
    }
    if (res.divergence) break;
    // A strategy that stops an iteration (dpor in a sleep-set-blocked one) drops
    // that schedule only; the run ends when the search is exhausted or cannot go on.
    if (replaying == nullptr) {
      if (const std::string error = chosen->search_error(); !error.empty()) {
        res.divergence = fmt::format("{} stopped: {}", chosen->describe(), error);
        break;
      }
      if (chosen->exhausted()) {
        stats.exhausted = true;
        break;
      }
    }
    if (opts.time_budget.count() > 0 && std::chrono::steady_clock::now() >= deadline) break;
  }
  if (stats.iterations == 0) stats.steps_min = 0;
  stats.schedules = chosen->schedules_explored();
  stats.elapsed = std::chrono::steady_clock::now() - started;
  if (res.divergence && opts.print_report) std::fprintf(stderr, "heddle: %s\n", res.divergence->c_str());
  return res;
}

}  // namespace heddle
