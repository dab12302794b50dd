// `dfs` and `dfs:pb=K`: exhaustive depth-first search over every scheduling
// decision and every data choice, optionally preemption-bounded.
//
// Stateless search (Godefroid, "Model Checking for Programming Languages using
// VeriSoft", POPL 1997): the strategy keeps the path of the current schedule
// as a stack of decisions. Each iteration re-runs the program from the start,
// replays the stack as a prefix, then takes the first alternative at every new
// decision. At the end of the iteration it backtracks: the deepest decision
// with an untried alternative moves to it and everything below is dropped.
// The search is exhausted when the stack empties; explore() then stops with
// stats.exhausted set. Every iteration is one complete schedule. A data choice
// is a decision like any other: every value in [0, bound) is tried, except
// that a rare (spurious) event is explored once per call site in each schedule
// (spurious_sites.hpp), so that retry loops and wait loops do not make the
// search endless.
//
// `dfs:pb=K` bounds preemptions (Musuvathi and Qadeer, "Iterative Context
// Bounding for Systematic Testing of Multithreaded Programs", PLDI 2007): a
// preemption is choosing an operation other than ctx.current while
// ctx.current is still enabled; only schedules with at most K of them are
// explored. As in CHESS, iterative deepening does not re-run schedules: the
// search of bound b follows only non-preempting alternatives, and every
// preempting alternative it passes becomes the root prefix of a subtree
// searched with bound b+1. A schedule is thus run exactly once, in the phase
// equal to its preemption count, and phases run in order 0, 1, ..., K.
//
// A prefix must replay to the same decisions: a schedule decision whose enabled
// operations (ids, pending points, objects) differ from the recorded ones, or
// a data choice with another bound, means the program does something heddle
// does not control. The iteration stops there and search_error() says at which
// step, which ends the run.
#include <fmt/format.h>

#include "strategies/spurious_sites.hpp"
#include "strategies/strategies.hpp"
#include "strategies/waiting.hpp"

namespace heddle::detail {
namespace {

// Identifies what a schedule decision offered, to notice a prefix that does
// not replay.
std::uint64_t fingerprint(std::span<const pending_operation> enabled) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (const pending_operation& p : enabled) {
    mix(p.id);
    mix(static_cast<std::uint64_t>(p.point) << 1 | (p.timed ? 1 : 0));
    mix(p.object);
  }
  return h;
}

std::string list_ids(std::span<const pending_operation> enabled) {
  std::string out;
  for (const pending_operation& p : enabled) out += fmt::format("{}{}", out.empty() ? "" : ", ", p.id);
  return out;
}

struct decision {
  std::uint64_t fingerprint = 0;  // enabled set (schedule) or bound (data choice)
  std::uint64_t count = 0;        // alternatives: enabled operations or the bound
  std::uint64_t chosen = 0;       // index into the enabled operations, or the value
  // The alternative tried first; the others follow in turn, wrapping around.
  // Not 0 where the current operation is about to yield or sleep (hands_over).
  std::uint64_t first = 0;
  bool data = false;
  // Nothing else is tried here in this phase: the choice keeps the current
  // operation (pb), or it belongs to a prefix handed down by an earlier phase.
  bool fixed = false;
};

class dfs_strategy final : public strategy {
 public:
  explicit dfs_strategy(std::optional<unsigned> bound) : bound_(bound) {}

  void begin_iteration(std::uint64_t, std::uint64_t) override {
    depth_ = 0;
    stopped_ = false;
    sites_.begin_iteration();
  }

  std::size_t next_operation(const decision_context& ctx) override {
    const std::uint64_t fp = fingerprint(ctx.enabled);
    if (depth_ < stack_.size()) {
      const decision& d = stack_[depth_];
      if (d.data || d.fingerprint != fp || d.count != ctx.enabled.size())
        return diverge(fmt::format("step {}: replaying the search prefix, the program offers {} (enabled "
                                   "operations: {}), not what it offered when this prefix was first run",
                                   ctx.step, d.data ? "a scheduling decision instead of a data choice" : "other operations",
                                   list_ids(ctx.enabled)));
      ++depth_;
      return static_cast<std::size_t>(d.chosen);
    }
    decision d{fp, ctx.enabled.size(), 0, 0, false, false};
    // An operation about to yield or sleep waits for another: the others go
    // first, so that a wait loop lets the operation it waits for run instead of
    // spinning to --max-steps in every schedule. Not under a preemption bound,
    // whose phases count a switch at a yield as a preemption: there the first
    // alternative stays the current operation.
    // An operation blocked with a deadline (timed) goes after the others too:
    // its timeout is time passing, so a worker that waits with a timeout in a
    // loop (spdlog's) does not time out again and again while the operations
    // it waits for never run.
    if (!bound_) d.chosen = d.first = first_alternative(ctx);
    if (bound_) {
      // The non-preempting alternative keeps the current operation; the
      // preempting ones are the roots of the next phase.
      for (std::size_t i = 0; i < ctx.enabled.size(); ++i)
        if (ctx.enabled[i].id == ctx.current) {
          d.chosen = i;
          d.fixed = true;
        }
      if (d.fixed && phase_ < *bound_) {
        for (std::size_t i = 0; i < ctx.enabled.size(); ++i) {
          if (i == d.chosen) continue;
          std::vector<decision> root(stack_.begin(), stack_.end());
          root.push_back({fp, d.count, i, i, false, true});
          next_phase_.push_back(std::move(root));
        }
      }
    }
    stack_.push_back(d);
    ++depth_;
    return static_cast<std::size_t>(d.chosen);
  }

  std::uint64_t next_value(const decision_context& ctx, const choice& c) override {
    const std::uint64_t bound = sites_.bound(c);
    if (depth_ < stack_.size()) {
      const decision& d = stack_[depth_];
      if (!d.data || d.fingerprint != c.bound || d.count != bound)
        return diverge(fmt::format("step {}: replaying the search prefix, the program makes {} where it made {} "
                                   "when this prefix was first run",
                                   ctx.step, fmt::format("a data choice below {}", c.bound),
                                   d.data ? fmt::format("a data choice below {}", d.fingerprint) : "a scheduling decision"));
      ++depth_;
      sites_.taken(c, d.chosen, false);
      return d.chosen;
    }
    // A data choice's fingerprint is its bound; `count` what is explored of it.
    stack_.push_back({c.bound, bound, 0, 0, true, false});
    ++depth_;
    sites_.taken(c, 0, bound < c.bound);
    return 0;
  }

  void end_iteration(const iteration_summary&) override {
    if (!error_.empty()) {
      exhausted_ = true;  // the search cannot go on
      return;
    }
    if (depth_ < stack_.size()) {
      error_ = fmt::format("the program ended after {} decisions, but replaying the search prefix needs {}",
                           depth_, stack_.size());
      exhausted_ = true;
      return;
    }
    ++schedules_;
    backtrack();
  }

  std::string describe() const override { return bound_ ? fmt::format("dfs:pb={}", *bound_) : "dfs"; }
  std::uint64_t learning_window() const override { return 0; }
  bool exhausted() const override { return exhausted_; }
  std::string stop_reason() const override { return stopped_ ? error_ : std::string{}; }
  std::string search_error() const override { return error_; }
  std::uint64_t schedules_explored() const override { return schedules_; }
  std::uint64_t bounded_choices() const override { return sites_.bounded_choices(); }

 private:
  std::uint64_t diverge(std::string why) {
    error_ = "the program is not deterministic under control: " + why +
             ". Likely cause: it depends on something heddle does not control (real time, addresses, unseeded "
             "randomness, or state left over from an earlier iteration)";
    stopped_ = true;
    return stop;
  }

  // Index in ctx.enabled of the first operation that does not wait for
  // another: not blocked with a deadline (timed), and not the current one about
  // to yield or sleep. When every enabled operation waits, the first after the
  // current one in id order, wrapping around, so that two loops that yield to
  // each other take turns: with the lowest id (main) every time, Boost's
  // spsc_queue between main and a producer, both yielding while the ring was
  // empty or full, ran main's loop alone to --max-steps in every schedule
  // (100 of 100 iterations cut; tests/thirdparty/spsc_queue.cpp).
  static std::size_t first_alternative(const decision_context& ctx) {
    for (std::size_t i = 0; i < ctx.enabled.size(); ++i)
      if (!steps_aside(ctx.enabled[i], ctx.current)) return i;
    for (std::size_t i = 0; i < ctx.enabled.size(); ++i)
      if (ctx.enabled[i].id > ctx.current) return i;
    return 0;
  }

  void backtrack() {
    while (stack_.size() > floor_) {
      decision& d = stack_.back();
      const std::uint64_t next = (d.chosen + 1) % d.count;
      if (!d.fixed && next != d.first) {
        d.chosen = next;
        return;
      }
      stack_.pop_back();
    }
    // This subtree is done: the next root of this phase, or of the next one.
    if (next_root_ == roots_.size()) {
      roots_ = std::move(next_phase_);
      next_phase_.clear();
      next_root_ = 0;
      ++phase_;
    }
    if (next_root_ == roots_.size() || (bound_ && phase_ > *bound_) || !bound_) {
      exhausted_ = true;
      return;
    }
    stack_ = std::move(roots_[next_root_++]);
    floor_ = stack_.size();
  }

  std::optional<unsigned> bound_;  // preemption bound (pb=K), none for plain dfs
  // Invariant: stack_[0..floor_) is the root prefix of the subtree being
  // searched (fixed); stack_[floor_..) is the path of the current schedule.
  std::vector<decision> stack_;
  std::size_t floor_ = 0;
  std::size_t depth_ = 0;  // decisions taken in the running iteration
  unsigned phase_ = 0;     // the preemption count of every schedule of this phase
  std::vector<std::vector<decision>> roots_;       // this phase's subtrees
  std::size_t next_root_ = 0;
  std::vector<std::vector<decision>> next_phase_;  // roots with one more preemption
  std::uint64_t schedules_ = 0;
  spurious_sites sites_;
  bool exhausted_ = false;
  bool stopped_ = false;
  std::string error_;
};

}  // namespace

std::unique_ptr<strategy> make_dfs_strategy(std::optional<unsigned> preemption_bound) {
  return std::make_unique<dfs_strategy>(preemption_bound);
}

}  // namespace heddle::detail
