// `ql`: Q-learning over state fingerprints.
//
// Mukherjee, Deligiannis, Biswas, Lal. "Learning-based controlled concurrency
// testing". OOPSLA 2020 (and Coyote's QLearningStrategy, written by the same
// group). Exploration is framed as reinforcement learning whose goal is to reach
// program states not seen before:
// - a state is a fingerprint of what the engine shows at a decision (every
//   enabled operation with its pending point and object, whether its wait is
//   timed, the operation that reached the point, how many operations exist) and
//   the state the test last reported with heddle::state_hash;
// - an action is the operation, by id, chosen to run from that state;
// - the reward of the transition into state s' is -N(s'), N counting visits to
//   s' over the whole run, so transitions into often-seen states are punished and
//   the policy drifts toward new ones;
// - after each iteration, every transition (s, a, s') of its path updates
//   Q(s,a) <- (1-a) Q(s,a) + a (r + g max_b Q(s',b)), with the paper's learning
//   rate a = 0.3 and discount g = 0.7; unseen actions start at Q = 0;
// - the policy is the paper's softmax (Boltzmann) over Q: P(a) ~ exp(Q(s,a)),
//   not epsilon-greedy, so there is no epsilon: with Q values that are all
//   negative and grow with visit counts, the softmax already explores.
// The Q-table and visit counts live in the strategy object and persist across
// the iterations of one learning window (1,024 consecutive indices; see
// learning_window() and docs/running.md), so a run learns the same wherever
// its iterations run; several runs in one process never share them.
//
// Departures from the paper:
// - Data choices (choose_bool/choose_int, spurious events) are uniform, as in
//   `random`, rather than learned actions; the state after a choice still
//   differs when the test hashes the chosen value in.
// - The fingerprint is built from scheduling state, not from a hash of all
//   program memory: without heddle::state_hash, two states that differ only in
//   plain data look the same. Tests that want data-aware learning hash the data
//   they care about.
// - The softmax subtracts the largest Q before exponentiating (the same
//   distribution, without underflow once visit counts are large).
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

constexpr double learning_rate = 0.3;
constexpr double discount = 0.7;
constexpr double visit_reward = -1.0;  // per earlier visit of the state entered

constexpr std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  std::uint64_t s = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  return splitmix64(s);
}

class ql_strategy final : public strategy {
 public:
  void begin_iteration(std::uint64_t, std::uint64_t seed) override {
    rng_.reseed(seed);
    path_.clear();
  }

  std::size_t next_operation(const decision_context& ctx) override {
    const std::uint64_t state = fingerprint(ctx);
    ++visits_[state];
    std::vector<action_value>& actions = table_[state];
    for (const pending_operation& p : ctx.enabled) value_of(actions, p.id);

    std::size_t pick = 0;
    if (ctx.enabled.size() > 1) pick = softmax_pick(ctx, actions);
    path_.push_back({state, ctx.enabled[pick].id});
    return pick;
  }

  std::uint64_t next_value(const decision_context&, const choice& c) override {
    return random_value(rng_, c.bound, c.rare);
  }

  void end_iteration(const iteration_summary&) override { learn(); }

  std::string describe() const override { return "ql"; }
  // Q-learning pays off over more iterations than a step count or a profile:
  // on the bug suite, a window of 64 lowered ql's share of buggy iterations
  // from 41 % to 35 %, and strategy_ql_test's late read needs about 500
  // iterations of learning; 1,024 keeps both (docs/strategies.md).
  std::uint64_t learning_window() const override { return 16 * default_learning_window; }

 private:
  struct action_value {
    operation_id op;
    double q;
  };
  struct transition {
    std::uint64_t state;  // the fingerprint at the decision
    operation_id chosen;  // the action taken from it
  };

  static std::uint64_t fingerprint(const decision_context& ctx) noexcept {
    std::uint64_t h = mix(0x71'6c'66'70ull, ctx.user_state_hash);
    h = mix(h, ctx.current);
    h = mix(h, ctx.operation_count);
    for (const pending_operation& p : ctx.enabled) {
      h = mix(h, p.id);
      h = mix(h, (static_cast<std::uint64_t>(p.point) << 33) | (static_cast<std::uint64_t>(p.timed) << 32) | p.object);
    }
    return h;
  }

  // The Q value of `op` in a state's list, added at 0 when first seen.
  static double& value_of(std::vector<action_value>& actions, operation_id op) {
    for (action_value& a : actions)
      if (a.op == op) return a.q;
    actions.push_back({op, 0.0});
    return actions.back().q;
  }

  std::size_t softmax_pick(const decision_context& ctx, std::vector<action_value>& actions) {
    weights_.clear();
    double top = -HUGE_VAL;
    for (const pending_operation& p : ctx.enabled) {
      weights_.push_back(value_of(actions, p.id));
      top = std::max(top, weights_.back());
    }
    double total = 0;
    for (double& w : weights_) total += (w = std::exp(w - top));
    // A uniform double in [0, total): 53 random bits.
    const double r = static_cast<double>(rng_.next() >> 11) * 0x1.0p-53 * total;
    double running = 0;
    for (std::size_t i = 0; i < weights_.size(); ++i) {
      running += weights_[i];
      if (r < running) return i;
    }
    return weights_.size() - 1;  // rounding: r landed at the very top
  }

  void learn() {
    for (std::size_t i = 0; i + 1 < path_.size(); ++i) {
      const transition& now = path_[i];
      const std::uint64_t next = path_[i + 1].state;
      double best_next = -HUGE_VAL;
      for (const action_value& a : table_[next]) best_next = std::max(best_next, a.q);
      if (best_next == -HUGE_VAL) best_next = 0;
      const double reward = visit_reward * static_cast<double>(visits_[next]);
      double& q = value_of(table_[now.state], now.chosen);
      q = (1 - learning_rate) * q + learning_rate * (reward + discount * best_next);
    }
  }

  rng rng_;
  // Learned over the whole run: state -> Q value of each action seen there (in
  // the order first seen, so decisions do not depend on hash-table order), and
  // state -> how many decisions were taken in it.
  std::unordered_map<std::uint64_t, std::vector<action_value>> table_;
  std::unordered_map<std::uint64_t, std::uint64_t> visits_;
  std::vector<transition> path_;  // this iteration's decisions, in order
  std::vector<double> weights_;   // scratch for the softmax
};

}  // namespace

std::unique_ptr<strategy> make_ql_strategy() { return std::make_unique<ql_strategy>(); }

}  // namespace heddle::detail
