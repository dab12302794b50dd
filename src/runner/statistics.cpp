#include "runner/statistics.hpp"

#include "engine/instrumented_code.hpp"
#include "engine/schedule_hash.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

namespace heddle {

double statistics::iterations_per_second() const {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  return seconds > 0 ? static_cast<double>(iterations) / seconds : 0.0;
}

double statistics::mean_steps() const {
  return iterations > 0 ? static_cast<double>(steps_total) / static_cast<double>(iterations) : 0.0;
}

namespace detail {
namespace {

void unite(std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b, std::uint64_t& count,
           std::uint64_t b_count) {
  // Past the kept sets, counts are lower bounds: keep the larger one.
  const std::uint64_t a_extra = count - a.size(), b_extra = b_count - b.size();
  std::vector<std::uint64_t> both;
  both.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  if (both.size() > statistics::kept_hashes) both.resize(statistics::kept_hashes);
  a = std::move(both);
  count = a.size() + std::max(a_extra, b_extra);
}

}  // namespace

std::uint64_t schedule_hash(const iteration_outcome& outcome) { return outcome.schedule_hash; }

std::uint64_t schedule_hash(const std::vector<trace_step>& steps) {
  std::uint64_t h = schedule_hash_start;
  for (const trace_step& s : steps) h = schedule_hash_step(h, s.kind, s.value);
  return schedule_hash_finish(h, steps.size());
}

namespace {
// The slot of `value` in a table of `capacity` (a power of two) slots: the top
// bits of a Fibonacci product, so values that differ only in low bits spread.
std::size_t home(std::uint64_t value, std::size_t capacity) noexcept {
  return static_cast<std::size_t>((value * 0x9e3779b97f4a7c15ull) >> (64 - std::countr_zero(capacity)));
}
}  // namespace

bool hash_set::insert(std::uint64_t value) {
  if (value == 0) return !std::exchange(has_zero_, true);
  if (2 * (size_ + 1) > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(value, slots_.size());; i = (i + 1) & mask) {
    if (slots_[i] == value) return false;
    if (slots_[i] == 0) {
      slots_[i] = value;
      ++size_;
      return true;
    }
  }
}

bool hash_set::contains(std::uint64_t value) const noexcept {
  if (value == 0) return has_zero_;
  if (slots_.empty()) return false;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(value, slots_.size());; i = (i + 1) & mask) {
    if (slots_[i] == value) return true;
    if (slots_[i] == 0) return false;
  }
}

void hash_set::prefetch(std::uint64_t value) const noexcept {
  if (!slots_.empty()) __builtin_prefetch(&slots_[home(value, slots_.size())], 1);
}

void hash_set::grow() {
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), 0);
  size_ = 0;
  for (std::uint64_t v : old)
    if (v != 0) insert(v);
}

std::vector<std::uint64_t> hash_set::sorted() const {
  std::vector<std::uint64_t> v;
  v.reserve(size());
  if (has_zero_) v.push_back(0);
  for (std::uint64_t x : slots_)
    if (x != 0) v.push_back(x);
  std::sort(v.begin(), v.end());
  return v;
}

void distinct_counter::insert(std::uint64_t value) {
  // The register: the top 12 bits of a mixed value; its content: the position
  // of the first 1 bit in the rest, the most any value sent there had.
  const std::uint64_t h = mix64(value, 0);
  std::uint8_t& r = registers_[h >> 52];
  const auto rank = static_cast<std::uint8_t>(std::countl_zero((h << 12) | (std::uint64_t{1} << 11)) + 1);
  if (rank > r) r = rank;
  if (overflowed_) return;
  if (exact_.size() < exact_limit) exact_.insert(value);
  else overflowed_ = !exact_.contains(value);
}

std::uint64_t distinct_counter::count() const {
  if (!overflowed_) return exact_.size();
  constexpr double m = 4096;
  double sum = 0;
  int zeros = 0;
  for (std::uint8_t r : registers_) {
    sum += std::ldexp(1.0, -r);
    zeros += r == 0 ? 1 : 0;
  }
  double estimate = 0.7213 / (1 + 1.079 / m) * m * m / sum;
  if (estimate <= 2.5 * m && zeros > 0) estimate = m * std::log(m / zeros);  // linear counting, small range
  return std::max<std::uint64_t>(exact_.size() + 1, static_cast<std::uint64_t>(std::llround(estimate)));
}

iteration_record make_record(std::uint64_t index, const iteration_outcome& outcome, engine* ran) {
  iteration_record r;
  r.index = index;
  r.steps = outcome.steps.size();
  r.schedule_hash = schedule_hash(outcome);
  r.has_end_state = outcome.state_hash.has_value();
  r.end_state = outcome.state_hash.value_or(0);
  r.max_enabled = static_cast<std::uint32_t>(outcome.max_enabled);
  r.hit_max_steps = outcome.hit_max_steps;
  r.bug = outcome.found.has_value();
  r.weak_order = outcome.weak_order;
  r.plain_unseen = outcome.relaxed_atomics && !detail::instrumented_code();
  r.sc_in_run_order = outcome.sc_in_run_order;
  // The outcome keeps the objects only with a bug; the engine that ran the
  // iteration still has them until the next one begins. An iteration without
  // an atomic or a variable (most tests of locks, all of yields) has nothing
  // to count: its steps are not read again, a loop that cost as much per step
  // as a fifth of a decision.
  const auto counted = [](object_kind k) { return k == object_kind::atomic || k == object_kind::variable; };
  bool any = false;
  for (const object_state& o : outcome.objects) any = any || counted(o.kind);
  if (ran != nullptr)
    for (object_id id = 1; id < ran->object_count() && !any; ++id) any = counted(ran->object(id).kind);
  if (!any) return r;
  for (const step_record& s : outcome.steps) {
    if (s.step.kind != step_kind::schedule || s.step.object == 0) continue;
    const bool kept = s.step.object < outcome.objects.size();
    if (!kept && ran == nullptr) continue;
    const object_kind kind = kept ? outcome.objects[s.step.object].kind : ran->object(s.step.object).kind;
    r.atomic_steps += kind == object_kind::atomic ? 1 : 0;
    r.memory_steps += kind == object_kind::variable ? 1 : 0;
  }
  return r;
}

statistics_accumulator::statistics_accumulator() {
  stats_.steps_min = std::numeric_limits<std::uint64_t>::max();
  pending_.reserve(batch);
}

void statistics_accumulator::add(const iteration_record& r) {
  ++stats_.iterations;
  stats_.steps_total += r.steps;
  stats_.steps_min = std::min(stats_.steps_min, r.steps);
  stats_.steps_max = std::max(stats_.steps_max, r.steps);
  stats_.max_enabled = std::max<std::uint64_t>(stats_.max_enabled, r.max_enabled);
  stats_.max_steps_hits += r.hit_max_steps ? 1 : 0;
  stats_.atomic_steps += r.atomic_steps;
  stats_.memory_steps += r.memory_steps;
  stats_.buggy_iterations += r.bug ? 1 : 0;
  stats_.weak_order_iterations += r.weak_order ? 1 : 0;
  stats_.plain_unseen_iterations += r.plain_unseen ? 1 : 0;
  stats_.sc_in_run_order_iterations += r.sc_in_run_order ? 1 : 0;
  pending_.push_back({r.schedule_hash, r.end_state, r.has_end_state});
  if (pending_.size() == batch) keep_pending();
}

void statistics_accumulator::keep_pending() {
  for (const pending_hashes& p : pending_) {
    schedules_.prefetch(p.schedule);
    if (p.has_end_state) end_states_.prefetch(p.end_state);
  }
  for (const pending_hashes& p : pending_) {
    schedules_.insert(p.schedule);
    if (p.has_end_state) end_states_.insert(p.end_state);
  }
  pending_.clear();
}

statistics statistics_accumulator::finish(std::chrono::nanoseconds elapsed) {
  keep_pending();
  statistics s = stats_;
  if (s.iterations == 0) s.steps_min = 0;
  s.elapsed = elapsed;
  s.schedule_hashes = schedules_.kept();
  s.end_state_hashes = end_states_.kept();
  s.distinct_schedules = schedules_.count();
  s.distinct_end_states = end_states_.count();
  return s;
}

void merge(statistics& a, const statistics& b) {
  if (b.iterations > 0) {
    a.steps_min = a.iterations == 0 ? b.steps_min : std::min(a.steps_min, b.steps_min);
    a.steps_max = std::max(a.steps_max, b.steps_max);
  }
  a.iterations += b.iterations;
  a.steps_total += b.steps_total;
  a.max_steps_hits += b.max_steps_hits;
  a.atomic_steps += b.atomic_steps;
  a.memory_steps += b.memory_steps;
  a.races_suppressed += b.races_suppressed;
  a.buggy_iterations += b.buggy_iterations;
  a.weak_order_iterations += b.weak_order_iterations;
  a.plain_unseen_iterations += b.plain_unseen_iterations;
  a.sc_in_run_order_iterations += b.sc_in_run_order_iterations;
  a.bounded_choices += b.bounded_choices;
  a.held_wait_iterations += b.held_wait_iterations;
  a.max_steps = std::max(a.max_steps, b.max_steps);
  a.max_enabled = std::max(a.max_enabled, b.max_enabled);
  // Shards run at the same time: the merged run took as long as the slowest.
  a.elapsed = std::max(a.elapsed, b.elapsed);
  a.exhausted = a.exhausted || b.exhausted;
  a.schedules += b.schedules;
  a.schedules_are_executions = a.schedules_are_executions || b.schedules_are_executions;
  if (b.memory_model == memory_model::rc11) a.memory_model = memory_model::rc11;
  a.workers += b.workers;
  a.workers_replaced += b.workers_replaced;
  unite(a.schedule_hashes, b.schedule_hashes, a.distinct_schedules, b.distinct_schedules);
  unite(a.end_state_hashes, b.end_state_hashes, a.distinct_end_states, b.distinct_end_states);
}

}  // namespace detail
}  // namespace heddle
