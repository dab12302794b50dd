// The type-erased form of a lincheck declaration: what the non-template half
// of lincheck (scenario generation, execution, verifiers, minimization,
// reports; src/lincheck) sees of the user's object, model and operations.
//
// Contract: operations are numbered in declaration order; an `arguments` or
// `observed` value is only ever handed back to the operation that made it;
// `model_state::apply` leaves the state unchanged when it answers `blocked`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace heddle::lincheck {

// The random source generators draw from; seeded from the run's seed, so a
// seed means the same scenarios everywhere.
using random_source = std::mt19937_64;

// Which correctness condition the verifier checks.
enum class consistency : std::uint8_t {
  linearizable,             // an order consistent with real time (Herlihy and Wing)
  sequentially_consistent,  // an order consistent with each thread's program order
  quiescently_consistent,   // real time is kept only across quiescent points
};
const char* to_string(consistency c) noexcept;

// Where a call stands in a scenario.
enum class part : std::uint8_t { init, parallel, post };

namespace detail {

// One call's arguments, as generated.
struct arguments {
  virtual ~arguments() = default;
  virtual std::string text() const = 0;  // "1, 2" (empty without parameters)
};

// What one call of the object under test returned.
struct observed {
  virtual ~observed() = default;
  virtual std::string text() const = 0;
};

enum class step_verdict : std::uint8_t {
  matches,  // the model returns what the object returned (or the call is pending)
  differs,  // the model returns something else (*model_result says what)
  blocked,  // the model says the operation cannot take effect in this state
  rejected, // the model judged the object's result (returned<R>) and does not accept it here
};

// A copy of the sequential model, for the verifiers' search.
class model_state {
 public:
  virtual ~model_state() = default;
  virtual std::unique_ptr<model_state> clone() const = 0;
  virtual bool equals(const model_state& other) const = 0;
  // 0 for every state when the model has no std::hash: equality then decides alone.
  virtual std::size_t hash() const = 0;
  // Applies operation `op`; `result` is what the object returned (null for a
  // call that never returned: any result is accepted). Writes the model's own
  // result into *model_result when it differs.
  virtual step_verdict apply(std::size_t op, const arguments& args, const observed* result,
                             std::string* model_result) = 0;
};

// A fresh object under test.
class object_instance {
 public:
  virtual ~object_instance() = default;
  virtual std::shared_ptr<const observed> call(std::size_t op, const arguments& args) = 0;
};

struct operation_decl {
  std::string name;
  bool once = false;   // appears at most once per scenario
  std::string group;   // non-parallel group: one thread of the parallel part calls its operations
  std::function<std::shared_ptr<const arguments>(random_source&)> generate;
};

}  // namespace detail
}  // namespace heddle::lincheck
