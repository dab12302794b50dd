// Scenarios, histories and the verifiers that judge them.
//
// A scenario is what runs: an initial sequential part, T threads of calls run
// in parallel, a final sequential part. A history is what happened: every call
// with its arguments, its result, and the logical times of its invocation and
// response (a counter bumped at each, between heddle scheduling points, so the
// order of the numbers is the real-time order of the events).
//
// The verifiers search for a sequential order of the calls that the model
// accepts with the observed results (Wing and Gong's search with Lowe's
// memoization of (calls linearized, model state), so a state reached twice is
// explored once). Which orders count depends on the consistency condition:
// linearizability keeps real-time order, sequential consistency each thread's
// program order, quiescent consistency real-time order across quiescent points.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heddle/lincheck/erased.hpp"

namespace heddle::lincheck {

// One call in a scenario. `id` is unique in the scenario and kept when the
// scenario is minimized, so a recorded schedule can still name the call.
struct actor {
  std::size_t op = 0;
  std::shared_ptr<const detail::arguments> args;
  std::size_t id = 0;
};

struct scenario {
  std::vector<actor> init;
  std::vector<std::vector<actor>> threads;
  std::vector<actor> post;
  std::size_t parallel_calls() const;
  std::size_t calls() const { return init.size() + parallel_calls() + post.size(); }
};

// One call as it happened. `thread` is 0 for the sequential parts and t+1 for
// thread t of the parallel part.
struct call_record {
  std::size_t op = 0;
  std::shared_ptr<const detail::arguments> args;
  std::shared_ptr<const detail::observed> result;  // null while pending
  std::size_t thread = 0;
  lincheck::part part = part::parallel;
  std::uint64_t invoked = 0;
  std::optional<std::uint64_t> responded;  // empty: the call never returned
  bool pending() const noexcept { return !responded.has_value(); }
};
using history = std::vector<call_record>;

// The verifiers' answer.
struct verdict {
  bool ok = false;
  // ok: a witness order (indices into the history); otherwise the longest
  // order the model could explain.
  std::vector<std::size_t> order;
  // Why no order explains the results (empty when ok).
  std::string explanation;
  std::uint64_t states = 0;  // (linearized set, model state) pairs explored
};

namespace detail {

// Names of the declared operations, for messages.
using operation_names = std::vector<std::string>;

// "push(1)" / "push(1): void"
std::string call_text(const operation_names& names, const call_record& c, bool with_result);

// Checks `h` against the model made by `make_model`. With `pending_must_block`
// (a scenario that deadlocked), calls that never returned must be blocked in
// the model's state after the order; otherwise they may take effect or not.
// At most 64 calls.
verdict verify(const operation_names& names, const model_state& initial, const history& h,
               consistency condition, bool pending_must_block = false);

}  // namespace detail
}  // namespace heddle::lincheck
