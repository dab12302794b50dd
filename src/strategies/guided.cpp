// The guided strategy (see guided.hpp for the contract). The idea of keying a
// schedule's decisions by each operation's own progress, rather than by global
// step index, follows trace simplification work (Jalbert and Sen, "A trace
// simplification technique for effective debugging of concurrent programs",
// FSE 2010): removing one context switch then leaves the later ones where the
// operations involved still reach them.
#include "strategies/guided.hpp"

#include <fmt/format.h>

#include "strategies/waiting.hpp"

namespace heddle::detail {
namespace {

// The current operation is enabled and runs on unless preempted, or it
// steps aside (waiting.hpp).
const pending_operation* continuing(const decision_context& ctx) {
  for (const pending_operation& p : ctx.enabled)
    if (p.id == ctx.current) return steps_aside(p, ctx.current) ? nullptr : &p;
  return nullptr;
}

std::size_t default_choice(const decision_context& ctx) {
  std::optional<std::size_t> current, after_current, lowest;
  for (std::size_t i = 0; i < ctx.enabled.size(); ++i) {
    const pending_operation& p = ctx.enabled[i];
    if (p.id == ctx.current) {
      current = i;
      continue;
    }
    if (waits(p)) continue;  // only when nothing else can run
    if (!lowest) lowest = i;
    if (!after_current && p.id > ctx.current) after_current = i;
  }
  if (continuing(ctx)) return *current;
  if (after_current) return *after_current;
  if (lowest) return *lowest;
  // Every enabled operation waits, the current one too: the first after it
  // in id order, wrapping around, as dfs does (first_alternative), so that
  // two loops that wait for each other take turns instead of the current one
  // spinning to the step limit (push-button, where sched_yield is a sleep).
  for (std::size_t i = 0; i < ctx.enabled.size(); ++i)
    if (ctx.enabled[i].id > ctx.current) return i;
  return 0;
}

std::optional<std::size_t> index_of(const decision_context& ctx, std::uint64_t id) {
  for (std::size_t i = 0; i < ctx.enabled.size(); ++i)
    if (ctx.enabled[i].id == id) return i;
  return std::nullopt;
}

}  // namespace

guided_strategy::guided_strategy(guide g) : guide_(std::move(g)) {
  for (std::size_t i = 0; i < guide_.overrides.size(); ++i) override_index_[guide_.overrides[i].key] = i;
}

void guided_strategy::begin_iteration(std::uint64_t, std::uint64_t) {
  events_.assign(8, 0);
  deviations_.clear();
  preemptions_ = 0;
  missed_ = 0;
  stop_reason_.clear();
}

decision_key guided_strategy::key_of(const decision_context& ctx, step_kind kind) {
  if (ctx.current >= events_.size()) events_.resize(ctx.current + 8, 0);
  return {ctx.current, events_[ctx.current]++, kind};
}

const deviation* guided_strategy::override_for(const decision_key& key) const {
  const auto it = override_index_.find(key);
  return it == override_index_.end() ? nullptr : &guide_.overrides[it->second];
}

std::size_t guided_strategy::next_operation(const decision_context& ctx) {
  if (ctx.step >= guide_.step_limit) {
    stop_reason_ = fmt::format("the guided run passed {} steps", guide_.step_limit);
    return stop;
  }
  const decision_key key = key_of(ctx, step_kind::schedule);
  const std::size_t fallback = default_choice(ctx);
  const bool runs_on = continuing(ctx) != nullptr;
  std::size_t pick = fallback;
  if (ctx.step < guide_.prefix.size()) {
    const trace_step& want = guide_.prefix[ctx.step];
    const auto found = want.kind == step_kind::schedule ? index_of(ctx, want.value) : std::nullopt;
    if (found) pick = *found;
    else ++missed_;
  } else if (const deviation* d = override_for(key)) {
    // An override keeps its nature: a preemption is applied only where the
    // current operation runs on, a switch after blocking only where it does
    // not, so dropping overrides can never add a preemption.
    if (d->preemption == runs_on)
      if (const auto found = index_of(ctx, d->value)) pick = *found;
  }
  if (pick != fallback) {
    const bool preempts = runs_on;
    preemptions_ += preempts ? 1 : 0;
    deviations_.push_back({key, ctx.enabled[pick].id, preempts, ctx.step});
  }
  return pick;
}

std::uint64_t guided_strategy::next_value(const decision_context& ctx, const choice& c) {
  const decision_key key = key_of(ctx, c.kind);
  std::uint64_t value = 0;
  if (ctx.step < guide_.prefix.size()) {
    const trace_step& want = guide_.prefix[ctx.step];
    if (want.kind == c.kind && want.value < c.bound) value = want.value;
    else ++missed_;
  } else if (const deviation* d = override_for(key); d != nullptr && d->value < c.bound) {
    value = d->value;
  }
  if (value != 0) deviations_.push_back({key, value, false, ctx.step});
  return value;
}

}  // namespace heddle::detail
