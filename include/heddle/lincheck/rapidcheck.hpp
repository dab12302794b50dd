// The RapidCheck front end of lincheck: commands generated and shrunk by
// RapidCheck's state-machine testing (rc::state), run in parallel under heddle
// and checked for linearizability against the model.
//
//   struct push : heddle::lincheck::rc_command<seq_stack, my_stack, void> {
//     int value = *rc::gen::inRange(1, 5);
//     void call(my_stack& s) const override { s.push(value); }
//     void expect(seq_stack& m) const override { m.push(value); }
//     void show(std::ostream& os) const override { os << "push(" << value << ")"; }
//   };
//   ...
//   RC_GTEST_PROP(stack, linearizable, ()) {
//     heddle::lincheck::check_parallel<seq_stack, my_stack>(
//         rc::state::gen::execOneOfWithArgs<push, pop, size>(), {.threads = 2, .ops_per_thread = 3});
//   }
//
// A test case is a sequential prefix (at most init_ops commands, valid for the
// initial model under RapidCheck's preconditions) and one command sequence per
// thread (at most ops_per_thread each, valid for the model after the prefix;
// preconditions are not checked across interleavings, so parallel commands
// should have none). Each case runs opts.iterations schedules under
// opts.strategy; a history no order explains fails the property with lincheck's
// report, and RapidCheck shrinks the case (fewer and simpler commands). The
// same commands also work with rc::state::check, sequentially.
//
// Why RapidCheck: it is packaged in Debian (librapidcheck-dev), its
// state-machine API is the C++ counterpart of QuickCheck's, and its shrinking
// of command sequences is what parallel property-based testing builds on; no
// better-kept C++ library offers state-machine testing.
#pragma once

#include <memory>
#include <string>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include "heddle/lincheck/spec.hpp"

namespace heddle::lincheck {

// What check_parallel needs of a command besides RapidCheck's interface.
template <class Model, class Object>
struct parallel_command : rc::state::Command<Model, Object> {
  virtual std::shared_ptr<const detail::observed> invoke(Object& o) const = 0;
  virtual detail::step_verdict verify(Model& m, const detail::observed* result, std::string* model_result) const = 0;
};

// A command with result type R (void allowed): call() runs it on the object,
// expect() on the model and returns what the object should return.
template <class Model, class Object, class R>
struct rc_command : parallel_command<Model, Object> {
  virtual R call(Object& o) const = 0;
  virtual R expect(Model& m) const = 0;

  void apply(Model& m) const override { (void)expect(m); }
  // Sequential use (rc::state::check): the object must return what the model does.
  void run(const Model& m, Object& o) const override {
    Model copy = m;
    if constexpr (std::is_void_v<R>) {
      call(o);
    } else {
      RC_ASSERT(call(o) == expect(copy));
    }
  }

  std::shared_ptr<const detail::observed> invoke(Object& o) const override {
    if constexpr (std::is_void_v<R>) {
      call(o);
      return std::make_shared<detail::observed_void>();
    } else {
      return std::make_shared<detail::observed_of<R>>(call(o));
    }
  }
  detail::step_verdict verify(Model& m, const detail::observed* result, std::string* model_result) const override {
    if constexpr (std::is_void_v<R>) {
      expect(m);
      return detail::step_verdict::matches;
    } else {
      const R expected = expect(m);
      if (result == nullptr || static_cast<const detail::observed_of<R>*>(result)->value == expected)
        return detail::step_verdict::matches;
      if (model_result != nullptr) *model_result = detail::show(expected);
      return detail::step_verdict::differs;
    }
  }
};

namespace detail {

// One command as the arguments of lincheck's single erased operation.
template <class Model, class Object>
struct command_arguments final : arguments {
  std::shared_ptr<const parallel_command<Model, Object>> command;
  explicit command_arguments(std::shared_ptr<const parallel_command<Model, Object>> c) : command(std::move(c)) {}
  std::string text() const override {
    std::ostringstream os;
    command->show(os);
    return os.str();
  }
};

template <class Model, class Object>
class command_model final : public model_state {
 public:
  explicit command_model(Model m) : model_(std::move(m)) {}
  std::unique_ptr<model_state> clone() const override { return std::make_unique<command_model>(model_); }
  bool equals(const model_state& other) const override { return model_ == static_cast<const command_model&>(other).model_; }
  std::size_t hash() const override {
    if constexpr (requires { std::hash<Model>{}(model_); }) return std::hash<Model>{}(model_);
    else return 0;
  }
  step_verdict apply(std::size_t, const arguments& a, const observed* result, std::string* model_result) override {
    return static_cast<const command_arguments<Model, Object>&>(a).command->verify(model_, result, model_result);
  }

 private:
  Model model_;
};

template <class Model, class Object>
class command_object final : public object_instance {
 public:
  std::shared_ptr<const observed> call(std::size_t, const arguments& a) override {
    return static_cast<const command_arguments<Model, Object>&>(a).command->invoke(object_);
  }

 private:
  Object object_;
};

template <class Model, class Object, class Commands>
std::vector<actor> to_actors(const Commands& commands, std::size_t& next_id) {
  std::vector<actor> out;
  for (const auto& c : commands) {
    auto typed = std::dynamic_pointer_cast<const parallel_command<Model, Object>>(c);
    if (!typed) RC_FAIL("heddle::lincheck::check_parallel: commands must derive from heddle::lincheck::rc_command");
    out.push_back({0, std::make_shared<command_arguments<Model, Object>>(std::move(typed)), next_id++});
  }
  return out;
}

}  // namespace detail

// Inside a RapidCheck property: generates a parallel test case with
// `generate_command` (e.g. rc::state::gen::execOneOfWithArgs<A, B, C>()), runs
// it under heddle, and fails the property with lincheck's report when no
// order explains a history. Model and Object must be default-constructible.
template <class Model, class Object, class GenerateCommand>
void check_parallel(GenerateCommand generate_command, options opts = {}, const Model& initial = Model()) {
  const auto prefix =
      *rc::gen::resize(static_cast<int>(opts.init_ops), rc::state::gen::commands(initial, generate_command));
  Model after = initial;
  rc::state::applyAll(prefix, after);
  std::size_t next_id = 0;
  scenario sc;
  sc.init = detail::to_actors<Model, Object>(prefix, next_id);
  for (std::size_t t = 0; t < opts.threads; ++t) {
    const auto commands =
        *rc::gen::resize(static_cast<int>(opts.ops_per_thread), rc::state::gen::commands(after, generate_command));
    sc.threads.push_back(detail::to_actors<Model, Object>(commands, next_id));
  }
  declaration d;
  opts.print_report = false;
  opts.minimize = false;
  opts.scenarios = 1;
  d.opts = opts;
  d.erased.ops.push_back({"", false, {}, {}});
  d.erased.make_object = [] { return std::make_unique<detail::command_object<Model, Object>>(); };
  d.erased.make_model = [initial] { return std::make_unique<detail::command_model<Model, Object>>(initial); };
  const result r = detail::check_scenario(d, sc);
  if (r.failure) RC_FAIL(r.failure->report);
}

}  // namespace heddle::lincheck
