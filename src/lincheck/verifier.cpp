// The verifiers: is there a sequential order of a history's calls that the
// model accepts with the observed results, among the orders the consistency
// condition allows?
//
// One search serves the three conditions; they differ only in which calls must
// precede which (`must_precede` below):
//   linearizable             a before b when a returned before b was invoked
//                            (Herlihy and Wing 1990);
//   sequentially consistent  a before b when the same thread made both, a first,
//                            and the sequential parts around the parallel one;
//   quiescently consistent   a before b when a quiescent point (no call in
//                            progress) lies between a's response and b's invocation.
// The search is Wing and Gong's (1993): extend the order with any call whose
// predecessors are all in it and that the model accepts, backtrack otherwise;
// with Lowe's (2017) memo of (set of calls ordered, model state), so a state
// reached along two orders is explored once. It records the deepest order it
// reached, which is what a failure report shows.
#include <algorithm>
#include <bit>
#include <unordered_set>

#include <fmt/format.h>

#include "heddle/lincheck/history.hpp"

namespace heddle::lincheck {

const char* to_string(consistency c) noexcept {
  switch (c) {
    case consistency::linearizable: return "linearizability";
    case consistency::sequentially_consistent: return "sequential consistency";
    case consistency::quiescently_consistent: return "quiescent consistency";
  }
  return "consistency";
}

std::size_t scenario::parallel_calls() const {
  std::size_t n = 0;
  for (const auto& t : threads) n += t.size();
  return n;
}

namespace detail {

std::string call_text(const operation_names& names, const call_record& c, bool with_result) {
  // An operation without a name (RapidCheck commands) prints as its arguments.
  std::string text = names[c.op].empty() ? (c.args ? c.args->text() : "")
                                         : fmt::format("{}({})", names[c.op], c.args ? c.args->text() : "");
  if (with_result) text += c.result ? ": " + c.result->text() : std::string(" (never returned)");
  return text;
}

namespace {

using mask = std::uint64_t;

bool has(mask m, std::size_t i) { return (m >> i) & 1u; }

std::vector<mask> must_precede(const history& h, consistency condition) {
  const std::size_t n = h.size();
  std::vector<mask> before(n, 0);
  // Quiescent points: times after which no call is in progress.
  std::vector<std::uint64_t> quiet;
  if (condition == consistency::quiescently_consistent) {
    std::vector<std::uint64_t> times;
    for (const call_record& c : h) {
      times.push_back(c.invoked);
      if (c.responded) times.push_back(*c.responded);
    }
    std::sort(times.begin(), times.end());
    for (std::uint64_t t : times) {
      bool open = false;
      for (const call_record& c : h) open = open || (c.invoked <= t && (!c.responded || *c.responded > t));
      if (!open) quiet.push_back(t);
    }
  }
  for (std::size_t b = 0; b < n; ++b) {
    for (std::size_t a = 0; a < n; ++a) {
      if (a == b) continue;
      const call_record& x = h[a];
      const call_record& y = h[b];
      bool precedes = false;
      switch (condition) {
        case consistency::linearizable:
          precedes = x.responded && *x.responded < y.invoked;
          break;
        case consistency::sequentially_consistent:
          precedes = (x.thread == y.thread && x.invoked < y.invoked) ||
                     (x.part == part::init && y.part != part::init) ||
                     (x.part != part::post && y.part == part::post);
          break;
        case consistency::quiescently_consistent:
          if (x.responded && *x.responded < y.invoked)
            precedes = std::any_of(quiet.begin(), quiet.end(),
                                   [&](std::uint64_t q) { return q >= *x.responded && q < y.invoked; });
          break;
      }
      if (precedes) before[b] |= mask{1} << a;
    }
  }
  return before;
}

struct memo_key {
  mask done;
  std::size_t hash;
  const model_state* state;
};
struct memo_hash {
  std::size_t operator()(const memo_key& k) const noexcept { return std::hash<mask>{}(k.done) * 31 + k.hash; }
};
struct memo_equal {
  bool operator()(const memo_key& a, const memo_key& b) const {
    return a.done == b.done && a.hash == b.hash && a.state->equals(*b.state);
  }
};

class search {
 public:
  search(const operation_names& names, const history& h, consistency condition, bool pending_must_block)
      : names_(names), h_(h), before_(must_precede(h, condition)), pending_must_block_(pending_must_block) {
    for (std::size_t i = 0; i < h.size(); ++i)
      if (!h[i].pending()) completed_ |= mask{1} << i;
  }

  bool run(const model_state& initial) {
    auto state = initial.clone();
    return extend(*state, 0);
  }

  std::vector<std::size_t> witness() const { return order_; }
  std::vector<std::size_t> deepest() const { return deepest_; }
  std::uint64_t states() const { return memo_.size(); }

  // Why the deepest order cannot go on: each call that could come next, and
  // what the model says to it.
  std::string explain(const model_state& initial) const {
    auto state = initial.clone();
    for (std::size_t i : deepest_) {
      std::string ignored;
      state->apply(h_[i].op, *h_[i].args, h_[i].result.get(), &ignored);
    }
    mask done = 0;
    for (std::size_t i : deepest_) done |= mask{1} << i;
    std::string lines;
    std::size_t waiting = 0;
    for (std::size_t i = 0; i < h_.size(); ++i) {
      if (has(done, i)) continue;
      if ((before_[i] & ~done) != 0) {
        ++waiting;
        continue;
      }
      const call_record& c = h_[i];
      if (c.pending()) {
        if (pending_must_block_) {
          auto copy = state->clone();
          std::string model_result;
          if (copy->apply(c.op, *c.args, nullptr, &model_result) != step_verdict::blocked)
            lines += fmt::format("\n  {} [{}] never returned, but the model would let it return here",
                                 call_text(names_, c, false), thread_name(c));
        }
        continue;
      }
      auto copy = state->clone();
      std::string model_result;
      switch (copy->apply(c.op, *c.args, c.result.get(), &model_result)) {
        case step_verdict::differs:
          lines += fmt::format("\n  {} [{}] returned {}, but the model returns {} here",
                               call_text(names_, c, false), thread_name(c), c.result->text(), model_result);
          break;
        case step_verdict::rejected:
          lines += fmt::format("\n  {} [{}] returned {}, which the model does not accept here",
                               call_text(names_, c, false), thread_name(c), c.result->text());
          break;
        case step_verdict::blocked:
          lines += fmt::format("\n  {} [{}] returned {}, but the model says it would block here",
                               call_text(names_, c, false), thread_name(c), c.result->text());
          break;
        case step_verdict::matches:
          lines += fmt::format("\n  {} [{}] fits here, but every order that continues with it fails later",
                               call_text(names_, c, false), thread_name(c));
          break;
      }
    }
    if (waiting > 0)
      lines += fmt::format("\n  ({} more call{} must come after one of these)", waiting, waiting == 1 ? "" : "s");
    std::string prefix;
    for (std::size_t i : deepest_)
      prefix += fmt::format("{}{} [{}]", prefix.empty() ? "" : ", ", call_text(names_, h_[i], true), thread_name(h_[i]));
    return fmt::format("the longest order the model explains has {} of {} calls: {}\nno call can come next:{}",
                       deepest_.size(), h_.size(), prefix.empty() ? "(none)" : prefix, lines);
  }

  static std::string thread_name(const call_record& c) {
    if (c.part == part::init) return "init";
    if (c.part == part::post) return "post";
    return fmt::format("T{}", c.thread);
  }

 private:
  bool accepts_end(const model_state& state, mask done) const {
    if ((done & completed_) != completed_) return false;
    if (!pending_must_block_) return true;
    for (std::size_t i = 0; i < h_.size(); ++i) {
      if (has(done, i) || !h_[i].pending()) continue;
      auto copy = state.clone();
      if (copy->apply(h_[i].op, *h_[i].args, nullptr, nullptr) != step_verdict::blocked) return false;
    }
    return true;
  }

  bool extend(const model_state& state, mask done) {
    if (order_.size() > deepest_.size() || deepest_.empty()) deepest_ = order_;
    if (accepts_end(state, done)) return true;
    for (std::size_t i = 0; i < h_.size(); ++i) {
      if (has(done, i) || (before_[i] & ~done) != 0) continue;
      // A call that never returned, in a deadlocked run, did not take effect.
      if (pending_must_block_ && h_[i].pending()) continue;
      auto next = state.clone();
      if (next->apply(h_[i].op, *h_[i].args, h_[i].result.get(), nullptr) != step_verdict::matches) continue;
      const mask after = done | (mask{1} << i);
      memo_key key{after, next->hash(), next.get()};
      if (memo_.contains(key)) continue;
      memo_.insert(key);
      states_.push_back(std::move(next));
      order_.push_back(i);
      if (extend(*states_.back(), after)) return true;
      order_.pop_back();
    }
    return false;
  }

  const operation_names& names_;
  const history& h_;
  std::vector<mask> before_;
  bool pending_must_block_;
  mask completed_ = 0;
  std::vector<std::size_t> order_;
  std::vector<std::size_t> deepest_;
  std::unordered_set<memo_key, memo_hash, memo_equal> memo_;
  std::vector<std::unique_ptr<model_state>> states_;  // owned here; the memo points into them
};

}  // namespace

verdict verify(const operation_names& names, const model_state& initial, const history& h,
               consistency condition, bool pending_must_block) {
  if (h.size() > 64)
    throw std::invalid_argument(fmt::format("the verifier takes at most 64 calls per history, not {}", h.size()));
  search s(names, h, condition, pending_must_block);
  verdict v;
  v.ok = s.run(initial);
  v.states = s.states();
  if (v.ok) {
    v.order = s.witness();
  } else {
    v.order = s.deepest();
    v.explanation = fmt::format("no order of the calls explains the results ({} checked, {} states explored); {}",
                                to_string(condition), v.states, s.explain(initial));
  }
  return v;
}

}  // namespace detail
}  // namespace heddle::lincheck
