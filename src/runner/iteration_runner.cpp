#include "runner/iteration_runner.hpp"

#include "backends/thread_backend.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <unistd.h>

#include "heddle/version.hpp"
#include "runner/bug_groups.hpp"
#include "runner/finalize.hpp"
#include "runner/html_report.hpp"
#include "runner/report.hpp"
#include "runner/statistics.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

namespace fs = std::filesystem;

std::string directory_name(std::string_view test) {
  std::string name;
  for (char c : test)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return name.empty() ? "test" : name;
}

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h == 0 ? 1 : h;  // 0 marks a free slot
}

}  // namespace

std::string test_directory(const options& o, const test_identity& id) {
  return o.out.empty() ? std::string{} : (fs::path(o.out) / directory_name(id.test)).string();
}

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
    const int error = errno;
    fs::remove(temporary, ec);
    if (error != EEXIST) throw usage_error(fmt::format("cannot write '{}'", target.string()));
  }
}

std::string reserve_new_file(const fs::path& dir, std::string_view stem, std::string_view extension) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("cannot create output directory '{}': {}", dir.string(), ec.message()));
  for (unsigned n = 1;; ++n) {
    const fs::path target = dir / fmt::format("{}-{}{}", stem, n, extension);
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return target.string();
    }
    if (errno != EEXIST) throw usage_error(fmt::format("cannot write '{}': {}", target.string(), std::strerror(errno)));
  }
}

void write_reserved_file(const fs::path& path, const std::string& text) {
  const fs::path temporary = fs::path(path).concat(fmt::format(".{}.tmp", ::getpid()));
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out.flush()) throw usage_error(fmt::format("cannot write '{}'", temporary.string()));
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) throw usage_error(fmt::format("cannot write '{}': {}", path.string(), ec.message()));
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
  h.memory = o.memory;
  h.memory_model = o.memory_model;
  h.detect_races = o.detect_races;
  h.backend = o.backend;
  h.iteration_timeout_ms = static_cast<std::uint64_t>(o.iteration_timeout.count());
  h.expect_exit = o.expect_exit;
  h.suppressions = o.suppressions;
  return h;
}

std::unique_ptr<backend> make_backend(const options& o) {
  if (o.backend == "threads") return std::make_unique<thread_backend>(o.stack_size);
  return std::make_unique<fiber_backend>(o.stack_size);
}

bool signature_table::claim(std::string_view signature) {
  const std::uint64_t h = fnv1a64(signature);
  for (std::size_t probe = 0; probe < slots; ++probe) {
    std::atomic<std::uint64_t>& slot = slots_[(h + probe) % slots];
    std::uint64_t seen = slot.load(std::memory_order_acquire);
    if (seen == 0 && slot.compare_exchange_strong(seen, h, std::memory_order_acq_rel)) return true;
    if (seen == h) return false;
  }
  return true;
}

bool signature_table::contains(std::string_view signature) const {
  const std::uint64_t h = fnv1a64(signature);
  for (std::size_t probe = 0; probe < slots; ++probe) {
    const std::uint64_t seen = slots_[(h + probe) % slots].load(std::memory_order_acquire);
    if (seen == h) return true;
    if (seen == 0) return false;
  }
  return false;
}

iteration_runner::iteration_runner(const run_context& run, signature_table& signatures, step_log* log,
                                   crash_note* note)
    : run_(run),
      signatures_(signatures),
      log_(log),
      chosen_(make_strategy(run.opts.strategy, {.fair_after = run.opts.fair_after,
                                                .weak_memory = run.opts.memory_model == memory_model::rc11})),
      window_(chosen_->learning_window()),
      streaming_(log != nullptr ? std::make_unique<streaming_strategy>(*chosen_, *log) : nullptr),
      active_(streaming_ ? streaming_.get() : chosen_.get()),
      backend_(make_backend(run.opts)),
      engine_(*backend_, {run.opts.max_steps, run.opts.fail_on_max_steps, run.opts.spurious_wakeups,
                          run.opts.spurious_cas_failures, run.opts.memory, run.opts.detect_races, run.opts.memory_model}),
      guard_(engine_, make_header(run.opts, run.id, chosen_->describe(), 0), run.directory, {}, note) {}

iteration_runner::~iteration_runner() = default;

namespace {
// What a bug's report is formatted from, when it is first read: one block, so
// the deferred report holds a single shared pointer (no allocation of its own
// in std::function) and the bug path makes one allocation for all of it.
struct deferred_report {
  // Built in place in make_shared's block: finalize_trace's result is not
  // moved through a temporary first.
  deferred_report(const bug_group& g, const iteration_outcome& outcome, const run_context& run)
      : finalized(finalize_trace(g.trace, outcome, {run.opts, run.body, run.id, &run.reduce})),
        ctx{run.id.test, run.id.program, {}, g.first_iteration, 0, false} {
    // Usually the saved trace's own bug (not minimized, no spurious note):
    // then no second copy of it is kept.
    if (!finalized.saved.found || *finalized.saved.found != g.bug) other_shown = g.bug;
  }
  const bug& shown() const { return other_shown ? *other_shown : *finalized.saved.found; }

  finalized_bug finalized;
  std::vector<timeline> timelines;  // made when the trace is written, else when read
  std::optional<bug> other_shown;   // the bug the report names, when not the saved trace's
  report_context ctx;
};
}  // namespace

void finalize_group(bug_group& g, const iteration_outcome& outcome, const run_context& run,
                    const std::string& reserved_file) {
  auto d = std::make_shared<deferred_report>(g, outcome, run);
  const finalized_bug& f = d->finalized;
  g.minimized_trace = f.saved;
  // The timelines, the trace file's JSON, the HTML and the text report are
  // made only when written or read: a bug nobody reads costs no formatting.
  if (!run.directory.empty()) {
    d->timelines = f.timelines();
    report_context& ctx = d->ctx;
    if (reserved_file.empty()) {
      g.trace_file = ctx.trace_file = write_new_file(run.directory, "bug", ".json", f.file_text(d->timelines));
    } else {
      write_reserved_file(reserved_file, f.file_text(d->timelines));
      g.trace_file = ctx.trace_file = reserved_file;
    }
    ctx.html_file = write_html_report(g.trace_file, d->timelines);
  }
  // Read when printed (options::print_report), saved in a summary, or by the caller.
  g.report = report_text::deferred([d = std::move(d)] {
    if (d->timelines.empty()) d->timelines = d->finalized.timelines();
    const std::vector<timeline>& t = d->timelines;
    return format_report(d->shown(), t.front(), t.size() > 1 ? &t.back() : nullptr, d->ctx);
  });
}

void iteration_runner::start_window_if_due(std::uint64_t index) {
  const bool due = window_ > 1 && !fresh_ && (index % window_ == 0 || index != next_index_);
  next_index_ = index + 1;
  fresh_ = false;
  if (!due) return;
  chosen_ = make_strategy(run_.opts.strategy, {.fair_after = run_.opts.fair_after,
                                               .weak_memory = run_.opts.memory_model == memory_model::rc11});
  if (streaming_) streaming_ = std::make_unique<streaming_strategy>(*chosen_, *log_);
  active_ = streaming_ ? streaming_.get() : chosen_.get();
}

// Runs iteration `index` under the strategy of its learning window; the
// strategy learns from it. Shared by warm_up and process.
const iteration_outcome& iteration_runner::run_one(std::uint64_t index) {
  start_window_if_due(index);
  active_->begin_iteration(index, iteration_seed(run_.opts.seed, index));
  guard_.begin_iteration(index);
  const iteration_outcome& outcome = engine_.run(*active_, run_.body);
  guard_.end_iteration();
  active_->end_iteration({outcome.steps.size(), outcome.found.has_value(), outcome.hit_max_steps,
                          outcome.weak_execution});
  return outcome;
}

void iteration_runner::warm_up(std::uint64_t index) { run_one(index); }

iteration_report iteration_runner::process(std::uint64_t index, const bug_decider& decide) {
  iteration_report out;
  const iteration_outcome& outcome = run_one(index);
  out.record = make_record(index, outcome, &engine_);

  if (outcome.found) {
    std::string signature = root_cause(*outcome.found, outcome.blocked_at);
    std::string reserved_file;
    const bool first = decide ? !signatures_.contains(signature) && decide(out.record, signature, reserved_file)
                              : signatures_.claim(signature);
    if (!first) {
      out.repeat = std::move(signature);
    } else {
      // Built where it is returned: a bug_group moved is a few hundred
      // instructions on the bug path (issue 14).
      bug_group& g = out.first.emplace();
      g.bug = *outcome.found;
      g.signature = std::move(signature);
      g.count = 1;
      g.first_iteration = index;
      g.trace.header = make_header(run_.opts, run_.id, chosen_->describe(), index);
      g.trace.steps = outcome.trace_steps();
      g.trace.found = outcome.found;
      // The summary line says when a spurious event made the bug.
      if (const std::string note = spurious_note(g.trace.steps); !note.empty()) g.bug.message += " (" + note + ")";
      finalize_group(g, outcome, run_, reserved_file);
    }
  }
  if (const std::string error = chosen_->search_error(); !error.empty())
    out.divergence = fmt::format("{} stopped: {}", chosen_->describe(), error);
  out.exhausted = chosen_->exhausted();
  if (run_.opts.check_determinism && !out.divergence) {
    std::optional<bug> found = outcome.found;
    out.divergence = check_determinism(index, outcome.trace_steps(), found);
  }
  return out;
}

std::optional<std::string> iteration_runner::check_determinism(std::uint64_t index,
                                                               const std::vector<trace_step>& steps,
                                                               const std::optional<bug>& found) {
  for (int run = 2; run <= 3; ++run) {
    replay_strategy again(steps, chosen_->describe());
    again.begin_iteration(index, iteration_seed(run_.opts.seed, index));
    guard_.begin_iteration(index);
    const iteration_outcome& o = engine_.run(again, run_.body);
    guard_.end_iteration();
    std::string what;
    if (o.stopped) what = *o.stopped;
    else if (!o.found && again.remaining() > 0)
      what = fmt::format("the program finished after {} steps, but the first run took {}", o.steps.size(), steps.size());
    else if (found.has_value() != o.found.has_value() || (found && found->signature() != o.found->signature()))
      what = fmt::format("the first run ended with {}, this one with {}",
                         found ? fmt::format("{}: {}", to_string(found->kind), found->message) : "no bug",
                         o.found ? fmt::format("{}: {}", to_string(o.found->kind), o.found->message) : "no bug");
    if (!what.empty())
      return fmt::format("the test is not deterministic: iteration {} ran again (run {} of 3) on the same "
                         "schedule and diverged: {}. It depends on something heddle does not control (real "
                         "time, addresses, an unseeded random generator, or a static left over from an earlier "
                         "iteration)",
                         index, run, what);
  }
  return std::nullopt;
}

}  // namespace heddle::detail
