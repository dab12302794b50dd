// The standby process that takes a crash over; see crash_minimize.hpp.
#include "lincheck/crash_minimize.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <optional>

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "heddle/version.hpp"
#include "lincheck/crash_trace.hpp"
#include "lincheck/scenario.hpp"
#include "runner/iteration_runner.hpp"
#include "runner/step_log.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::lincheck::detail {

using heddle::detail::shared_region;
using heddle::detail::step_log;
using steady = std::chrono::steady_clock;

// In shared memory, then the schedule entries, the report text and the step
// log of the attempt in flight.
struct crash_supervisor::shared_state {
  // The crashed process's request.
  std::size_t scenario_index = 0;
  int signal = 0;
  crash_counts counts;
  // The crashed run's scenario, as the calls of generated scenario
  // `scenario_index` it kept: init's size and ids, the number of threads,
  // each thread's size and ids, post's size and ids; kept_size 0: none.
  // Its decisions so far are in the entries array (`entries` of them).
  static constexpr std::size_t kept_capacity = 512;
  std::uint64_t kept[kept_capacity] = {};
  std::size_t kept_size = 0;
  std::atomic<int> reported{0};
  // The attempt in flight: how it died, whether it was following a recorded
  // schedule then, its run's decisions in scenario terms.
  crash_note note;
  std::atomic<int> following{0};
  std::atomic<std::uint64_t> entries{0};
  // The report an interleaving process formatted.
  std::atomic<std::uint64_t> text_size{0};
};

namespace {

constexpr std::size_t text_capacity = 256 * 1024;

// A scenario that crashed in a process of its own, and how.
struct crashing_run {
  scenario sc;
  std::vector<trace_step> steps;         // the crashing run's decisions, as a trace records them
  std::vector<schedule_entry> schedule;  // the same in scenario terms
  std::size_t thread = no_thread;
  std::size_t call = no_actor;
  bool on_schedule = false;  // it crashed while following a recorded schedule
};

// The shared memory of the standby and its attempts.
struct workspace {
  crash_supervisor::shared_state* state;
  schedule_entry* entries;
  std::uint64_t capacity;
  char* text;
  step_log* steps;
};

// Streams an attempt's decisions to the workspace as they are taken.
class streaming_observer final : public run_observer {
 public:
  explicit streaming_observer(const workspace& w) : w_(w) {}
  void begin_run() override {
    w_.steps->begin();
    w_.state->entries.store(0, std::memory_order_release);
  }
  void decided(const trace_step& step, const schedule_entry& entry) override {
    w_.steps->append(step);
    const std::uint64_t n = w_.state->entries.load(std::memory_order_relaxed);
    if (n >= w_.capacity) return;
    w_.entries[n] = entry;
    w_.state->entries.store(n + 1, std::memory_order_release);
  }

 private:
  const workspace& w_;
};

std::string thread_name(std::size_t thread) { return thread == 0 ? "init/post" : fmt::format("T{}", thread); }

class standby {
 public:
  standby(const declaration& d, const workspace& w, const crash_destination& where, steady::time_point deadline)
      : d_(d), w_(w), where_(where), deadline_(deadline) {
    for (const operation_decl& op : d.erased.ops) names_.push_back(op.name);
  }

  bool report() {
    const crash_supervisor::shared_state& s = *w_.state;
    index_ = s.scenario_index;
    signal_ = s.signal;
    // As check() generated and explored it: the crash comes back if it
    // depends only on the seed.
    const std::uint64_t seed = heddle::detail::iteration_seed(d_.opts.seed, index_);
    random_source r(seed);
    const scenario generated = generate_scenario(d_.erased, d_.opts, r);
    original_calls_ = generated.calls();
    // The crashed run itself (a minimization candidate, perhaps), its
    // decisions followed first; else the generated scenario, explored.
    std::vector<schedule_entry> crashed_schedule;
    std::optional<scenario> crashed = crashed_scenario(generated);
    if (crashed) crashed_schedule.assign(w_.entries, w_.entries + s.entries.load());
    std::optional<crashing_run> best =
        crashed ? attempt(*crashed, &crashed_schedule, seed) : attempt(generated, nullptr, seed);
    if (!best) return false;
    if (d_.opts.minimize) shrink(*best, seed);

    const std::string message = crash_message(*best);
    const std::string trace_file = save_trace(*best, message);
    std::string text = interleaving_report(*best, message);
    text += replay_hint(where_, trace_file, "crashes");
    std::fputs(text.c_str(), stderr);
    record(message, trace_file, text);
    return true;
  }

 private:
  // The crashed run's scenario the crashed process handed over, if it did
  // and its calls are the generated scenario's.
  std::optional<scenario> crashed_scenario(const scenario& generated) const {
    const crash_supervisor::shared_state& s = *w_.state;
    std::size_t k = 0;
    bool fits = true;
    const auto next = [&]() -> std::uint64_t {
      if (k < s.kept_size) return s.kept[k++];
      fits = false;
      return 0;
    };
    const auto part = [&](std::vector<actor>& out) {
      for (std::uint64_t n = next(); fits && n > 0; --n) {
        const actor* a = find_call(generated, next());
        if (a == nullptr) fits = false;
        else out.push_back(*a);
      }
    };
    if (s.kept_size == 0) return std::nullopt;
    scenario sc;
    part(sc.init);
    const std::uint64_t threads = next();
    for (std::uint64_t t = 0; fits && t < threads; ++t) part(sc.threads.emplace_back());
    part(sc.post);
    if (!fits || k != s.kept_size) return std::nullopt;
    return sc;
  }

  // Runs `sc` in a process of its own: following `follow` first if given,
  // then fresh schedules from `seed`. The run if it died of the signal.
  std::optional<crashing_run> attempt(const scenario& sc, const std::vector<schedule_entry>* follow,
                                      std::uint64_t seed) {
    if (steady::now() >= deadline_) return std::nullopt;
    crash_supervisor::shared_state& s = *w_.state;
    s.note.signal.store(0);
    s.following.store(0);
    s.entries.store(0);
    w_.steps->begin();
    const pid_t child = ::fork();
    if (child < 0) return std::nullopt;
    if (child == 0) {
      try {
        executor exec(d_.erased, d_.opts);
        streaming_observer observer(w_);
        exec.observe(&observer);
        crash_guard guard(exec, d_.opts, {}, {}, &s.note);
        result totals;
        if (follow != nullptr) {
          s.following.store(1);
          (void)exec.follow(sc, *follow);
          s.following.store(0);
        }
        (void)exec.explore(sc, seed, totals);
      } catch (...) {
      }
      ::_exit(0);
    }
    const int status = heddle::detail::wait_for_child(child, deadline_);
    if (!WIFSIGNALED(status) || s.note.signal.load(std::memory_order_acquire) != signal_) return std::nullopt;
    crashing_run c;
    c.sc = sc;
    c.steps = w_.steps->snapshot();
    c.schedule.assign(w_.entries, w_.entries + s.entries.load(std::memory_order_acquire));
    c.thread = s.note.thread;
    c.call = s.note.call;
    c.on_schedule = s.following.load() != 0;
    return c;
  }

  // Greedy removal, as minimize() does for a failure.
  void shrink(crashing_run& best, std::uint64_t seed) {
    std::uint64_t tries = 0;
    for (bool progress = true; progress;) {
      progress = false;
      for (removal& c : removals(best.sc, best.schedule)) {
        ++tries;
        std::optional<crashing_run> smaller =
            attempt(c.sc, &c.schedule, heddle::detail::iteration_seed(seed, tries));
        if (!smaller) continue;
        best = std::move(*smaller);
        ++reductions_;
        if (best.on_schedule) ++reductions_on_schedule_;
        progress = true;
        break;
      }
    }
  }

  std::string crash_message(const crashing_run& c) const {
    const actor* a = c.call == no_actor ? nullptr : find_call(c.sc, c.call);
    if (a == nullptr)
      return fmt::format("{} outside the calls (building or destroying the object)", signal_description(signal_));
    return fmt::format("{} in the call {}({}) [{}]", signal_description(signal_), names_[a->op], a->args->text(),
                       thread_name(c.thread));
  }

  // The report, with the interleaving of the crashing run up to its last
  // decision: formatted in a process of its own, which follows the run's
  // decisions but stops at the last one, before the code that crashed.
  std::string interleaving_report(const crashing_run& c, const std::string& message) {
    crash_supervisor::shared_state& s = *w_.state;
    s.text_size.store(0);
    s.note.signal.store(0);
    const pid_t child = ::fork();
    if (child == 0) {
      try {
        executor exec(d_.erased, d_.opts);
        crash_guard guard(exec, d_.opts, {}, {}, &s.note);
        std::size_t last = c.steps.size();
        while (last > 0 && c.steps[last - 1].kind != step_kind::schedule) --last;
        if (last > 0) --last;
        heddle::detail::replay_strategy prefix({c.steps.begin(), c.steps.begin() + static_cast<std::ptrdiff_t>(last)});
        prefix.begin_iteration(0, 0);
        failing_run f{c.sc, exec.run(c.sc, prefix), judgement{"crash", bug_kind::crash, message}, reductions_,
                      reductions_on_schedule_};
        mark_crash(f, c);
        const std::string text = format_report(names_, f, d_.opts, index_, original_calls_, true);
        const std::size_t n = std::min(text.size(), text_capacity);
        std::copy_n(text.data(), n, w_.text);
        s.text_size.store(n, std::memory_order_release);
      } catch (...) {
      }
      ::_exit(0);
    }
    if (child > 0) (void)heddle::detail::wait_for_child(child, std::max(deadline_, steady::now() + std::chrono::seconds(5)));
    if (const std::uint64_t n = s.text_size.load(std::memory_order_acquire); n > 0) return std::string(w_.text, n);
    // The interleaving could not be had (the run crashed before its last
    // decision, or while being stopped): the scenario and why, at least.
    return fmt::format("heddle lincheck: crash in scenario {} of {}{}\n\nScenario:\n{}\nWhy: {}\n", index_,
                       d_.opts.scenarios,
                       c.sc.calls() != original_calls_
                           ? fmt::format(" (minimized from {} calls to {})", original_calls_, c.sc.calls())
                           : "",
                       scenario_text(names_, c.sc), message);
  }

  // Where the run crashed, as a row in the crashing thread's column. The
  // call that crashed had not returned; if it had not even started at the
  // last decision (it crashed at its very beginning), it is added first.
  void mark_crash(failing_run& f, const crashing_run& c) const {
    if (c.thread == no_thread || c.thread > c.sc.threads.size()) return;
    const actor* a = c.call == no_actor ? nullptr : find_call(c.sc, c.call);
    const bool started =
        std::any_of(f.run.calls.begin(), f.run.calls.end(), [&](const call_record& r) { return r.thread == c.thread && r.pending(); });
    if (a != nullptr && !started) {
      call_record r;
      r.op = a->op;
      r.args = a->args;
      r.thread = c.thread;
      const bool in_post =
          std::any_of(c.sc.post.begin(), c.sc.post.end(), [&](const actor& p) { return p.id == a->id; });
      r.part = c.thread != 0 ? part::parallel : in_post ? part::post : part::init;
      std::uint64_t last = 0;
      for (const call_record& earlier : f.run.calls)
        last = std::max({last, earlier.invoked, earlier.responded.value_or(0)});
      r.invoked = last + 1;
      f.run.events.push_back({interleaving_event::kind::invoke, c.thread, f.run.calls.size(), {}});
      f.run.calls.push_back(std::move(r));
    }
    f.run.events.push_back(
        {interleaving_event::kind::switched, c.thread, 0, fmt::format("crashed: {}", signal_description(signal_))});
  }

  // The trace `heddle replay` replays (crash_trace.hpp); its path, or empty
  // when there is no test to replay or nowhere to save it.
  std::string save_trace(const crashing_run& c, const std::string& message) const {
    bug b;
    b.kind = bug_kind::crash;
    b.message = message;
    return detail::save_trace(d_, where_, index_, c.sc, c.steps, std::move(b));
  }

  // The test's record for `heddle test`, as the crash guard would write it,
  // with the minimized scenario and the trace.
  void record(const std::string& message, const std::string& trace_file, const std::string& text) const {
    if (where_.result_file.empty()) return;
    const crash_counts& n = w_.state->counts;
    result r{index_ + 1, n.runs, 0, n.steps, n.atomic_steps, n.memory_steps, failure{}, {}};
    r.failure->kind = "crash";
    r.failure->report = text;
    r.failure->trace_file = trace_file;
    r.elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(n.seconds));
    nlohmann::json record = record_of(where_.test, d_.opts, r);
    record["bug"]["message"] = fmt::format("{} (test {}, scenario {} of {}{})", message, where_.test, index_,
                                           d_.opts.scenarios,
                                           reductions_ > 0 ? fmt::format(", minimized from {} calls", original_calls_) : "");
    std::ofstream out(where_.result_file, std::ios::app);
    out << record.dump() << "\n";
  }

  const declaration& d_;
  const workspace& w_;
  const crash_destination& where_;
  steady::time_point deadline_;
  operation_names names_;
  std::size_t index_ = 0;
  int signal_ = 0;
  std::size_t original_calls_ = 0;
  std::size_t reductions_ = 0;
  std::size_t reductions_on_schedule_ = 0;
};

// Decisions an attempt's run can record: max_steps, within reason (the
// memory is mapped, and only touched as far as a run goes).
std::uint64_t capacity_for(const lincheck::options& o) { return std::min<std::uint64_t>(o.max_steps, 1u << 20) + 64; }

}  // namespace

crash_supervisor::crash_supervisor(const declaration& d, crash_destination where, std::chrono::milliseconds time_limit)
    : declaration_(d), where_(std::move(where)), time_limit_(time_limit) {
  const std::uint64_t capacity = capacity_for(d.opts);
  try {
    region_ = std::make_unique<shared_region>(sizeof(shared_state) + capacity * sizeof(schedule_entry) +
                                              text_capacity + step_log::bytes_for(capacity));
  } catch (const std::runtime_error&) {
    return;  // no standby: a crash is reported as found
  }
  shared_ = new (region_->data()) shared_state();
  int requests[2];
  int replies[2];
  if (::pipe2(requests, O_CLOEXEC) != 0) return;
  if (::pipe2(replies, O_CLOEXEC) != 0) {
    ::close(requests[0]);
    ::close(requests[1]);
    return;
  }
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(requests[1]);
    ::close(replies[0]);
    serve(requests[0], replies[1]);
  }
  ::close(requests[0]);
  ::close(replies[1]);
  if (child < 0) {
    ::close(requests[1]);
    ::close(replies[0]);
    return;
  }
  standby_ = child;
  requests_ = requests[1];
  replies_ = replies[0];
}

namespace {
// A standby killed but not yet waited for: reaped when the next one is, so
// check() does not wait for the kill to land (a scheduling delay on a busy
// machine) and at most one such process is left over.
std::atomic<pid_t> unreaped{-1};

void reap(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}
}  // namespace

crash_supervisor::~crash_supervisor() {
  if (standby_ < 0) return;
  ::close(requests_);
  ::close(replies_);
  ::kill(standby_, SIGKILL);
  if (::waitpid(standby_, nullptr, WNOHANG) == standby_) return;
  if (const pid_t earlier = unreaped.exchange(standby_); earlier > 0) reap(earlier);
}

bool crash_supervisor::hand_over(std::size_t scenario_index, int sig, const crash_counts& counts,
                                 const executor& exec) noexcept {
  if (standby_ < 0) return false;
  shared_->scenario_index = scenario_index;
  shared_->signal = sig;
  shared_->counts = counts;
  // The run in flight, copied without allocating: what to follow first.
  shared_->kept_size = 0;
  shared_->entries.store(0);
  if (const scenario* sc = exec.running()) {
    std::size_t k = 0;
    const auto put = [&](std::uint64_t v) {
      if (k < shared_state::kept_capacity) shared_->kept[k] = v;
      ++k;
    };
    const auto part = [&](const std::vector<actor>& calls) {
      put(calls.size());
      for (const actor& a : calls) put(a.id);
    };
    part(sc->init);
    put(sc->threads.size());
    for (const auto& t : sc->threads) part(t);
    part(sc->post);
    if (k <= shared_state::kept_capacity) {
      shared_->kept_size = k;
      const std::vector<schedule_entry>& schedule = exec.last_run().schedule;
      const std::uint64_t capacity = capacity_for(declaration_.opts);
      const std::uint64_t n = std::min<std::uint64_t>(schedule.size(), capacity);
      auto* entries = reinterpret_cast<schedule_entry*>(static_cast<char*>(region_->data()) + sizeof(shared_state));
      std::copy_n(schedule.data(), n, entries);
      shared_->entries.store(n);
    }
  }
  if (::write(requests_, "c", 1) != 1) return false;
  char answer = 0;
  ssize_t n = 0;
  while ((n = ::read(replies_, &answer, 1)) < 0 && errno == EINTR) {
  }
  return n == 1 && shared_->reported.load(std::memory_order_acquire) == 1;
}

void crash_supervisor::serve(int requests, int replies) {
  char request = 0;
  ssize_t n = 0;
  while ((n = ::read(requests, &request, 1)) < 0 && errno == EINTR) {
  }
  if (n == 1) {
    const std::uint64_t capacity = capacity_for(declaration_.opts);
    char* base = static_cast<char*>(region_->data());
    auto* entries = reinterpret_cast<schedule_entry*>(base + sizeof(shared_state));
    char* text = reinterpret_cast<char*>(entries + capacity);
    step_log steps(text + text_capacity, capacity);
    const workspace w{shared_, entries, capacity, text, &steps};
    bool reported = false;
    try {
      standby s(declaration_, w, where_, steady::now() + time_limit_);
      reported = s.report();
    } catch (...) {
    }
    shared_->reported.store(reported ? 1 : 0, std::memory_order_release);
    (void)!::write(replies, "r", 1);
  }
  ::_exit(0);
}

}  // namespace heddle::lincheck::detail
