// Delta debugging over a schedule's deviations from the non-preemptive policy
// (Zeller and Hildebrandt, "Simplifying and isolating failure-inducing input",
// TSE 2002), then a binary search for the shortest prefix to keep.
//
// 1. The original trace is re-run as a prefix: it must replay exactly and end
//    in the same bug, else it is left as it is. The guided strategy lists the
//    run's decisions that differ from its default, keyed by operation progress.
// 2. ddmin over the removable ones (preemptions and non-zero data choices):
//    a candidate keeps a subset as overrides (switches after blocking always
//    stay) and is accepted when it ends in the same bug and ranks no worse
//    (fewer preemptions, or as many and no more steps). An accepted run's own
//    deviations become the new set, so later rounds work on what really ran.
//    Then each remaining preemption alone, retargeted to every operation.
// 3. Shortest prefix: the accepted run's first k steps, then the default
//    policy; the smallest k whose run ends in the same bug and ranks no worse.
// Steps 2 and 3 repeat while a round improves the rank.
//
// A crash (a fatal signal, a stack overflow) is minimized too: each candidate
// then runs in a process of its own (fork), which reports its decisions and
// deviations through shared memory as it goes and its crash through the crash
// guard's note, so a candidate that crashes ends that process, not this one.
#include "runner/minimize.hpp"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <type_traits>
#include <utility>

#include <sys/wait.h>
#include <unistd.h>

#include "backends/fiber_backend.hpp"
#include "runner/crash_guard.hpp"
#include "runner/step_log.hpp"
#include "strategies/guided.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

std::string masked(std::string_view message) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(message[i]))) {
      out += '#';
      while (i + 1 < message.size() && std::isdigit(static_cast<unsigned char>(message[i + 1]))) ++i;
    } else {
      out += message[i];
    }
  }
  return out;
}

bool is_crash(const bug& b) { return b.kind == bug_kind::crash || b.kind == bug_kind::stack_overflow; }

std::vector<std::string>& arguments_now() {
  static std::vector<std::string> arguments;
  return arguments;
}

// What a candidate run in a process of its own tells the minimizer, in
// shared memory: its crash (crash_guard fills the note), the guided
// strategy's deviations and missed prefix steps as they happen, and whether
// the run ended without a crash. Its decisions go to the step log after it.
struct isolated_channel {
  crash_note note;
  std::atomic<std::uint64_t> deviations{0};  // published entries of the array below
  std::atomic<std::uint64_t> missed{0};
  std::atomic<int> finished{0};
};
static_assert(std::is_trivially_copyable_v<deviation>);

// Publishes the guided strategy's progress after every decision.
class publishing_strategy final : public strategy {
 public:
  publishing_strategy(guided_strategy& inner, isolated_channel& channel, deviation* slots, std::uint64_t capacity)
      : inner_(inner), channel_(channel), slots_(slots), capacity_(capacity) {}
  void begin_iteration(std::uint64_t index, std::uint64_t seed) override { inner_.begin_iteration(index, seed); }
  std::size_t next_operation(const decision_context& ctx) override {
    const std::size_t pick = inner_.next_operation(ctx);
    publish();
    return pick;
  }
  std::uint64_t next_value(const decision_context& ctx, const choice& c) override {
    const std::uint64_t value = inner_.next_value(ctx, c);
    publish();
    return value;
  }
  void end_iteration(const iteration_summary& s) override { inner_.end_iteration(s); }
  std::string describe() const override { return inner_.describe(); }
  std::string stop_reason() const override { return inner_.stop_reason(); }

 private:
  void publish() noexcept {
    const std::vector<deviation>& all = inner_.deviations();
    const std::uint64_t n = std::min<std::uint64_t>(all.size(), capacity_);
    for (std::uint64_t i = published_; i < n; ++i) slots_[i] = all[i];
    published_ = n;
    channel_.missed.store(inner_.missed(), std::memory_order_relaxed);
    channel_.deviations.store(n, std::memory_order_release);
  }

  guided_strategy& inner_;
  isolated_channel& channel_;
  deviation* slots_;
  std::uint64_t capacity_;
  std::uint64_t published_ = 0;
};

class minimizer {
 public:
  minimizer(const std::function<void()>& body, const trace& original, const minimize_limits& limits,
            const input_reduction* reduce)
      : body_(body),
        original_(original),
        limits_(limits),
        reduce_(reduce),
        arguments_(original.header.arguments),
        started_(std::chrono::steady_clock::now()),
        step_limit_(std::max<std::uint64_t>(4 * original.steps.size(), original.steps.size() + 1000)),
        fibers_(limits.stack_size),
        engine_(fibers_, {original.header.max_steps, original.header.fail_on_max_steps,
                          original.header.spurious_wakeups, original.header.spurious_cas_failures,
                          original.header.memory, original.header.detect_races, original.header.memory_model}) {}

  minimization run() {
    minimization m;
    m.original.trace = original_;
    m.best.trace = original_;
    if (!original_.found) return finish(m, "the trace records no bug");
    if (is_crash(*original_.found)) isolate();

    // 1. The original, as a prefix followed step by step.
    candidate first;
    if (!attempt({original_.steps, {}, step_limit_}, first, /*exact=*/true))
      return finish(m, "the trace does not replay exactly to the same bug");
    m.original = first.run;
    best_ = std::move(first);
    reduce_input();

    // 2 and 3, again while a round improves: a shorter run has new keys
    // that the next round can work on.
    for (;;) {
      const auto before = rank(best_.run);
      reduce_preemptions();
      retarget_preemptions();
      shorten_prefix();
      if (rank(best_.run) >= before || !within_budget()) break;
    }
    m.best = best_.run;
    m.minimized = true;
    return finish(m, {});
  }

 private:
  // A guided run and the decisions in it that differ from the default policy.
  struct candidate {
    recorded_run run;
    std::vector<deviation> deviations;
  };

  // Fewer preemptions first, then fewer steps.
  static std::pair<std::uint64_t, std::size_t> rank(const recorded_run& r) {
    return {r.preemptions, r.trace.steps.size()};
  }

  bool within_budget() const {
    return runs_ < limits_.max_runs && std::chrono::steady_clock::now() - started_ < limits_.time_limit;
  }

  // Runs `g` and makes it the best run when it ends in the original's bug and
  // ranks no worse; returns whether it did.
  bool try_guide(guide g) {
    candidate c;
    if (!attempt(std::move(g), c) || rank(c.run) > rank(best_.run)) return false;
    best_ = std::move(c);
    return true;
  }

  static void split(const std::vector<deviation>& all, std::vector<deviation>& fixed,
                    std::vector<deviation>& removable) {
    fixed.clear();
    removable.clear();
    for (const deviation& d : all) {
      const bool switch_after_blocking = d.key.kind == step_kind::schedule && !d.preemption;
      (switch_after_blocking ? fixed : removable).push_back(d);
    }
  }

  // 2. ddmin over the best run's removable deviations. An accepted run's
  // removable deviations are a subset of the ones it was given, so every
  // acceptance shrinks the set and the loop ends.
  void reduce_preemptions() {
    std::vector<deviation> fixed, removable;
    split(best_.deviations, fixed, removable);
    std::size_t n = 2;
    bool first = true;
    while (!removable.empty() && within_budget()) {
      // The empty set first: a run without any removable deviation is the best outcome.
      std::vector<std::vector<deviation>> keeps;
      if (first) keeps.emplace_back();
      first = false;
      n = std::min(n, removable.size());
      const std::size_t chunk = (removable.size() + n - 1) / n;
      for (std::size_t begin = 0; begin < removable.size(); begin += chunk) {
        const auto cut = removable.begin() + static_cast<std::ptrdiff_t>(begin);
        const auto resume = removable.begin() + static_cast<std::ptrdiff_t>(std::min(begin + chunk, removable.size()));
        std::vector<deviation> complement(removable.begin(), cut);
        complement.insert(complement.end(), resume, removable.end());
        keeps.push_back(std::move(complement));
      }
      bool reduced = false;
      for (const std::vector<deviation>& keep : keeps) {
        std::vector<deviation> overrides = fixed;
        overrides.insert(overrides.end(), keep.begin(), keep.end());
        if (try_guide({{}, std::move(overrides), step_limit_})) {
          split(best_.deviations, fixed, removable);
          n = std::max<std::size_t>(n - 1, 2);
          reduced = true;
          break;
        }
      }
      if (!reduced) {
        if (n >= removable.size()) break;
        n = std::min(2 * n, removable.size());
      }
    }
  }

  // ddmin only drops preemptions; the one a bug needs may be a preemption the
  // original took towards another operation (op 2 preempted for op 5 where
  // op 3 was what mattered). First each preemption point alone, towards each
  // operation in turn (switches after blocking kept); then each preemption
  // retargeted among the others, followed by ddmin, kept only if that ends
  // with fewer preemptions.
  void retarget_preemptions() {
    if (best_.run.preemptions <= 1) return;
    std::vector<deviation> fixed, removable;
    split(best_.deviations, fixed, removable);
    // A run in a process of its own brings back no names: count the
    // operations its schedule ran.
    std::size_t operations = best_.run.outcome.operation_names.size();
    for (const trace_step& step : best_.run.trace.steps)
      if (step.kind == step_kind::schedule) operations = std::max<std::size_t>(operations, step.value);
    // Calls visit(target) for every other operation until one returns true.
    const auto retarget = [&](const deviation& d, auto&& visit) {
      for (operation_id target = 1; target <= operations && within_budget(); ++target)
        if (target != d.value && target != d.key.operation && visit(target)) return true;
      return false;
    };
    for (const deviation& d : removable) {
      if (!d.preemption) continue;
      if (retarget(d, [&](operation_id target) {
            std::vector<deviation> overrides = fixed;
            overrides.push_back({d.key, target, true, d.step});
            return try_guide({{}, std::move(overrides), step_limit_});
          }))
        return;
    }
    const std::vector<deviation> all = best_.deviations;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!all[i].preemption) continue;
      if (retarget(all[i], [&](operation_id target) {
            std::vector<deviation> overrides = all;
            overrides[i].value = target;
            candidate c;
            if (!attempt({{}, std::move(overrides), step_limit_}, c)) return false;
            candidate kept = std::move(best_);
            best_ = std::move(c);
            reduce_preemptions();
            if (best_.run.preemptions < kept.run.preemptions) return true;
            best_ = std::move(kept);
            return false;
          }))
        return;
    }
  }

  // 3. The shortest prefix of the best run that, completed by the default
  // policy, still ends in the same bug. Past its last deviation a run is the
  // default policy already, so the search starts there.
  void shorten_prefix() {
    std::size_t low = 0;
    std::size_t high = 0;
    for (const deviation& d : best_.deviations) high = std::max<std::size_t>(high, d.step + 1);
    while (low < high && within_budget()) {
      const std::size_t middle = low + (high - low) / 2;
      const auto begin = best_.run.trace.steps.begin();
      // The best run's first `middle` steps stay the same when it changes.
      if (try_guide({{begin, begin + static_cast<std::ptrdiff_t>(middle)}, {}, step_limit_}))
        high = middle;
      else
        low = middle + 1;
    }
  }

  // Runs one guided iteration; true when it ends in the original's bug (and,
  // when `exact`, followed the prefix to the letter).
  bool attempt(guide g, candidate& out, bool exact = false) {
    if (!within_budget()) return false;
    ++runs_;
    if (region_) return attempt_isolated(std::move(g), out, exact);
    guided_strategy s(std::move(g));
    set_iteration_arguments(arguments_);
    s.begin_iteration(original_.header.iteration, 0);
    const iteration_outcome& o = engine_.run(s, body_);
    s.end_iteration({o.steps.size(), o.found.has_value(), o.hit_max_steps});
    if (!o.found || o.stopped || !same(*o.found)) return false;
    if (exact && (s.missed() != 0 || o.trace_steps() != original_.steps)) return false;
    out.run.trace.header = original_.header;
    out.run.trace.header.arguments = arguments_;
    out.run.trace.steps = o.trace_steps();
    out.run.trace.found = o.found;
    out.run.outcome = o;
    out.run.preemptions = s.preemptions();
    out.run.preemption_steps.clear();
    for (const deviation& d : s.deviations())
      if (d.preemption) out.run.preemption_steps.push_back(d.step);
    out.deviations = s.deviations();
    return true;
  }

  // Sets up the shared memory candidates in their own processes report through.
  void isolate() {
    const std::uint64_t capacity = step_limit_ + 1;
    const std::size_t channel_bytes = (sizeof(isolated_channel) + 63) / 64 * 64;
    const std::size_t deviation_bytes = (capacity * sizeof(deviation) + 63) / 64 * 64;
    region_ = std::make_unique<shared_region>(channel_bytes + deviation_bytes + step_log::bytes_for(capacity));
    char* base = static_cast<char*>(region_->data());
    channel_ = new (base) isolated_channel();
    slots_ = reinterpret_cast<deviation*>(base + channel_bytes);
    log_ = std::make_unique<step_log>(base + channel_bytes + deviation_bytes, capacity);
    capacity_ = capacity;
  }

  // attempt() for a crash: the candidate runs in a child process, which the
  // crash it should end in kills; a child that outlives the time budget (a
  // candidate that hangs) is killed.
  bool attempt_isolated(guide g, candidate& out, bool exact) {
    guided_strategy s(std::move(g));
    publishing_strategy published(s, *channel_, slots_, capacity_);
    bug b;
    std::vector<trace_step> steps;
    if (!crashed_in_child(published, b, steps)) return false;
    if (!same(b)) return false;
    if (exact && (channel_->missed.load() != 0 || steps != original_.steps)) return false;
    out.deviations.assign(slots_, slots_ + channel_->deviations.load(std::memory_order_acquire));
    out.run.trace.header = original_.header;
    out.run.trace.header.arguments = arguments_;
    out.run.trace.steps = std::move(steps);
    out.run.trace.found = b;
    out.run.outcome = {};
    out.run.outcome.found = b;
    out.run.preemptions = 0;
    out.run.preemption_steps.clear();
    for (const deviation& d : out.deviations) {
      if (!d.preemption) continue;
      ++out.run.preemptions;
      out.run.preemption_steps.push_back(d.step);
    }
    return true;
  }

  // Runs one iteration under `s` in a child process; true when it crashed,
  // with its bug and decisions.
  bool crashed_in_child(strategy& s, bug& b, std::vector<trace_step>& steps, std::uint64_t seed = 0) {
    channel_->note.signal.store(0);
    channel_->deviations.store(0);
    channel_->missed.store(0);
    channel_->finished.store(0);
    streaming_strategy streamed(s, *log_);
    const pid_t child = ::fork();
    if (child < 0) return false;
    if (child == 0) {
      {
        set_iteration_arguments(arguments_);
        crash_guard guard(engine_, original_.header, {}, {}, &channel_->note);
        streamed.begin_iteration(original_.header.iteration, seed);
        guard.begin_iteration(original_.header.iteration);
        (void)engine_.run(streamed, body_);
        guard.end_iteration();
      }
      channel_->finished.store(1, std::memory_order_release);
      ::_exit(0);
    }
    const int status = wait_for(child);
    if (!WIFSIGNALED(status) || channel_->note.signal.load(std::memory_order_acquire) == 0) return false;
    b.kind = channel_->note.kind;
    b.message = channel_->note.message;
    b.operation = channel_->note.operation;
    b.operation_name = channel_->note.operation_name;
    steps = log_->snapshot();
    b.step = steps.size();
    return true;
  }

  // A run under fresh random schedule number `n`, made the candidate (its
  // deviations from following its own steps) when it ends in the bug.
  bool attempt_fresh(std::uint64_t n, candidate& out) {
    if (!within_budget()) return false;
    ++runs_;
    const std::unique_ptr<strategy> fresh = make_random_strategy();
    const std::uint64_t seed = iteration_seed(original_.header.seed ^ runs_, n);
    std::vector<trace_step> steps;
    if (region_) {
      bug b;
      if (!crashed_in_child(*fresh, b, steps, seed) || !same(b)) return false;
    } else {
      set_iteration_arguments(arguments_);
      fresh->begin_iteration(original_.header.iteration, seed);
      const iteration_outcome& o = engine_.run(*fresh, body_);
      if (!o.found || o.stopped || !same(*o.found)) return false;
      steps = o.trace_steps();
    }
    return attempt({std::move(steps), {}, step_limit_}, out);
  }

  bool same(const bug& b) const {
    return reduce_ != nullptr && reduce_->same ? reduce_->same(b, *original_.found) : same_bug(b, *original_.found);
  }

  // 0. Smaller inputs, greedily: the first candidate that still ends in the
  // bug is kept, on the failing schedule if it can be, and the next round
  // starts from it.
  void reduce_input() {
    if (reduce_ == nullptr || !reduce_->candidates) return;
    for (bool progress = true; progress && within_budget();) {
      progress = false;
      for (std::vector<std::string>& input : reduce_->candidates(best_.run.trace)) {
        const std::vector<std::string> kept_arguments = std::exchange(arguments_, input);
        candidate c;
        bool on_schedule = attempt({{}, best_.deviations, step_limit_}, c);
        bool found = on_schedule;
        for (std::uint64_t n = 0; !found && n < reduce_->fresh_schedules && within_budget(); ++n)
          found = attempt_fresh(n, c);
        if (!found) {
          arguments_ = kept_arguments;
          continue;
        }
        if (reduce_->accepted) reduce_->accepted(input, on_schedule);
        arguments_ = input;
        c.run.trace.header.arguments = input;
        best_ = std::move(c);
        progress = true;
        break;
      }
    }
  }

  // The child's wait status; killed when the time budget runs out first.
  int wait_for(pid_t child) const { return wait_for_child(child, started_ + limits_.time_limit); }

  minimization finish(minimization& m, std::string reason) {
    m.reason = std::move(reason);
    m.runs = runs_;
    m.elapsed = std::chrono::steady_clock::now() - started_;
    return std::move(m);
  }

  const std::function<void()>& body_;
  const trace& original_;
  minimize_limits limits_;
  const input_reduction* reduce_;
  std::vector<std::string> arguments_;  // the input of the runs now: the best run's, or a candidate's
  std::chrono::steady_clock::time_point started_;
  std::uint64_t step_limit_;  // a completion that spins is stopped here
  fiber_backend fibers_;
  engine engine_;
  candidate best_;
  std::uint64_t runs_ = 0;
  // Set for a crash (isolate()): where candidates in their own processes report.
  std::unique_ptr<shared_region> region_;
  isolated_channel* channel_ = nullptr;
  deviation* slots_ = nullptr;
  std::unique_ptr<step_log> log_;
  std::uint64_t capacity_ = 0;
};

}  // namespace

bool same_bug(const bug& a, const bug& b) {
  if (a.kind != b.kind || masked(a.message) != masked(b.message)) return false;
  if (a.kind == bug_kind::deadlock || a.kind == bug_kind::livelock) return true;
  return a.where.file == b.where.file && a.where.line == b.where.line;
}

const std::vector<std::string>& iteration_arguments() { return arguments_now(); }
void set_iteration_arguments(std::vector<std::string> arguments) { arguments_now() = std::move(arguments); }

minimization minimize(const std::function<void()>& body, const trace& original, const minimize_limits& limits,
                      const input_reduction* reduce) {
  return minimizer(body, original, limits, reduce).run();
}

}  // namespace heddle::detail
