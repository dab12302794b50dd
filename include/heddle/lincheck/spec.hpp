// The declaration half of lincheck (see heddle/lincheck.hpp, which adds the
// GoogleTest macro): generators, options, spec<Object, Model> with its
// compile-time checks, results, check().
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "heddle/bug.hpp"
#include "heddle/options.hpp"
#include "heddle/lincheck/erased.hpp"
#include "heddle/lincheck/history.hpp"
#include "heddle/lincheck/printing.hpp"

namespace heddle::lincheck {

// ---------------------------------------------------------------- generators

// Integers from lo to hi, both included.
template <std::integral T>
struct range_generator {
  T lo, hi;
  T operator()(random_source& r) const {
    return static_cast<T>(std::uniform_int_distribution<long long>(static_cast<long long>(lo),
                                                                   static_cast<long long>(hi))(r));
  }
};
template <std::integral T>
range_generator<T> range(T lo, T hi) {
  return {lo, hi};
}

// One of the given values, each equally likely.
template <class T>
struct value_generator {
  std::vector<T> choices;
  T operator()(random_source& r) const {
    return choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(r)];
  }
};
template <class T, class... More>
value_generator<std::common_type_t<T, More...>> values(T first, More... more) {
  return {{first, more...}};
}

// Any callable taking random_source& is a generator too.

// ---------------------------------------------------------------- judging models

// What the object under test returned, handed to a model member that judges
// it: `bool dequeue(returned<std::optional<int>> got)`. Such a member says
// whether the model accepts that result in its state (and, if so, applies the
// call's effect), instead of computing the one result it expects. This is how
// a model allows more than one outcome: a queue that is FIFO per producer but
// not across producers, a try-operation that may fail spuriously. When the
// call never returned (a deadlocked or cut-off run), `known()` is false and
// the member says whether the call can take effect without a result (false:
// it would block here).
template <class R>
class returned {
 public:
  explicit returned(const R* value) noexcept : value_(value) {}
  bool known() const noexcept { return value_ != nullptr; }
  const R& operator*() const noexcept { return *value_; }
  const R* operator->() const noexcept { return value_; }

 private:
  const R* value_;
};

// ---------------------------------------------------------------- options

struct options {
  std::size_t threads = 2;         // threads of the parallel part
  std::size_t ops_per_thread = 3;  // calls per thread
  std::size_t init_ops = 1;        // calls before the parallel part
  std::size_t post_ops = 1;        // calls after it
  std::size_t scenarios = 100;     // scenarios to generate
  std::uint64_t iterations = 50;   // runs (schedules) per scenario
  std::string strategy = "pct:3";  // any heddle strategy spec: "random", "pos", "dfs:pb=2", "dpor"...
  std::uint64_t seed = 0x6c696e636b;
  lincheck::consistency consistency = consistency::linearizable;
  bool minimize = true;              // shrink a failing scenario before reporting it
  std::uint64_t max_steps = 20000;   // decisions per run
  bool fail_on_max_steps = false;    // at max_steps: false skips the run, true reports a livelock
  bool print_report = true;          // print a failure's report to stderr
  // For objects built with -fsanitize=thread against libheddle-rt
  // (heddle_instrument(), docs/pushbutton.md): which plain memory accesses are
  // scheduling points, and whether unordered ones are data_race failures.
  memory_policy memory = memory_policy::shared;
  bool detect_races = true;
};

namespace detail {

// The erased declaration plus its options: what check() runs.
struct erased_spec {
  std::vector<operation_decl> ops;
  std::function<std::unique_ptr<object_instance>()> make_object;
  std::function<std::unique_ptr<model_state>()> make_model;
  std::vector<std::string> problems;  // declaration mistakes found while declaring
};

// ---- what a callable takes and returns

template <class F>
struct callable_traits;
template <class R, class C, class... A>
struct callable_traits<R (C::*)(A...)> {
  using result = R;
  using args = std::tuple<std::decay_t<A>...>;
};
template <class R, class C, class... A>
struct callable_traits<R (C::*)(A...) const> : callable_traits<R (C::*)(A...)> {};
template <class R, class C, class... A>
struct callable_traits<R (C::*)(A...) noexcept> : callable_traits<R (C::*)(A...)> {};
template <class R, class C, class... A>
struct callable_traits<R (C::*)(A...) const noexcept> : callable_traits<R (C::*)(A...)> {};
// A free function or a lambda taking the object first.
template <class R, class Self, class... A>
struct callable_traits<R (*)(Self, A...)> : callable_traits<R (Self::*)(A...)> {};
template <class L, class R, class Self, class... A>
struct lambda_traits {
  using result = R;
  using args = std::tuple<std::decay_t<A>...>;
};
template <class Op>
struct lambda_call;
template <class L, class R, class Self, class... A>
struct lambda_call<R (L::*)(Self, A...) const> : lambda_traits<L, R, Self, A...> {};
template <class L, class R, class Self, class... A>
struct lambda_call<R (L::*)(Self, A...)> : lambda_traits<L, R, Self, A...> {};
template <class F>
  requires requires { &F::operator(); }
struct callable_traits<F> : lambda_call<decltype(&F::operator())> {};

template <class F>
concept known_callable = requires { typename callable_traits<F>::result; };

// Does the model's member judge the object's result (returned<R> first, bool back)?
template <class ModelFn, class Model, class R, class Args>
struct judges_result : std::false_type {};
template <class ModelFn, class Model, class R, class... A>
  requires(!std::is_void_v<R>)
struct judges_result<ModelFn, Model, R, std::tuple<A...>>
    : std::is_invocable_r<bool, const ModelFn&, Model&, returned<R>, const A&...> {};

template <class Tuple>
struct arguments_of final : arguments {
  Tuple values;
  explicit arguments_of(Tuple v) : values(std::move(v)) {}
  std::string text() const override { return show_elements(values); }
};

template <class R>
struct observed_of final : observed {
  R value;
  explicit observed_of(R v) : value(std::move(v)) {}
  std::string text() const override { return show(value); }
};
struct observed_void final : observed {
  std::string text() const override { return "void"; }
};

// ---- one declared operation, typed

template <class Object, class Model>
struct typed_operation {
  virtual ~typed_operation() = default;
  virtual std::shared_ptr<const arguments> generate(random_source& r) const = 0;
  virtual std::shared_ptr<const observed> call(Object& o, const arguments& a) const = 0;
  virtual step_verdict apply(Model& m, const arguments& a, const observed* result,
                             std::string* model_result) const = 0;
  std::function<bool(const Model&)> enabled;  // .when(...): the model says when it may run
};

template <class Object, class Model, class ObjectFn, class ModelFn, class... Generators>
class operation_of final : public typed_operation<Object, Model> {
  using traits = callable_traits<ObjectFn>;
  using args_tuple = typename traits::args;
  using object_result = std::decay_t<typename traits::result>;

  template <bool Judging, class Tuple>
  struct model_result_for {
    using type = void;  // a judging member returns whether it accepts the result
  };
  template <class... A>
  struct model_result_for<false, std::tuple<A...>> {
    using type = std::decay_t<std::invoke_result_t<const ModelFn&, Model&, const A&...>>;
  };

 public:
  // The model's member takes returned<R> first and judges the object's result.
  static constexpr bool judging = judges_result<ModelFn, Model, object_result, args_tuple>::value;
  using model_result = typename model_result_for<judging, args_tuple>::type;
  // The model says "would block" with an empty optional (or false for a void operation).
  static constexpr bool partial =
      !judging && ((std::is_void_v<object_result> && std::is_same_v<model_result, bool>) ||
                   (!is_optional<object_result>::value && is_optional<model_result>::value));

  operation_of(ObjectFn object_fn, ModelFn model_fn, Generators... generators)
      : object_fn_(object_fn), model_fn_(model_fn), generators_(std::move(generators)...) {}

  std::shared_ptr<const arguments> generate(random_source& r) const override {
    return std::make_shared<arguments_of<args_tuple>>(generate_tuple(r, std::index_sequence_for<Generators...>{}));
  }

  std::shared_ptr<const observed> call(Object& o, const arguments& a) const override {
    const auto& args = static_cast<const arguments_of<args_tuple>&>(a).values;
    if constexpr (std::is_void_v<object_result>) {
      std::apply([&](const auto&... v) { std::invoke(object_fn_, o, v...); }, args);
      return std::make_shared<observed_void>();
    } else {
      return std::make_shared<observed_of<object_result>>(
          std::apply([&](const auto&... v) { return std::invoke(object_fn_, o, v...); }, args));
    }
  }

  step_verdict apply(Model& m, const arguments& a, const observed* result, std::string* model_result_text) const override {
    if (this->enabled && !this->enabled(m)) return step_verdict::blocked;
    const auto& args = static_cast<const arguments_of<args_tuple>&>(a).values;
    if constexpr (judging) {
      const object_result* got =
          result == nullptr ? nullptr : &static_cast<const observed_of<object_result>&>(*result).value;
      const bool accepted = std::apply(
          [&](const auto&... v) { return std::invoke(model_fn_, m, returned<object_result>(got), v...); }, args);
      if (accepted) return step_verdict::matches;
      return got == nullptr ? step_verdict::blocked : step_verdict::rejected;
    } else {
      return compare(m, args, result, model_result_text);
    }
  }

 private:
  step_verdict compare(Model& m, const args_tuple& args, const observed* result, std::string* model_result_text) const {
    auto run = [&] { return std::apply([&](const auto&... v) { return std::invoke(model_fn_, m, v...); }, args); };
    if constexpr (std::is_void_v<object_result>) {
      if constexpr (partial) {
        return run() ? step_verdict::matches : step_verdict::blocked;
      } else {
        run();
        return step_verdict::matches;
      }
    } else {
      const model_result expected = run();
      if constexpr (partial) {
        if (!expected) return step_verdict::blocked;
      }
      if (result == nullptr) return step_verdict::matches;
      const object_result& got = static_cast<const observed_of<object_result>&>(*result).value;
      bool same = false;
      if constexpr (partial) same = got == *expected;
      else same = got == expected;
      if (same) return step_verdict::matches;
      if (model_result_text != nullptr) {
        if constexpr (partial) *model_result_text = show(*expected);
        else *model_result_text = show(expected);
      }
      return step_verdict::differs;
    }
  }

  template <std::size_t... I>
  args_tuple generate_tuple(random_source& r, std::index_sequence<I...>) const {
    return args_tuple{static_cast<std::tuple_element_t<I, args_tuple>>(std::get<I>(generators_)(r))...};
  }
  ObjectFn object_fn_;
  ModelFn model_fn_;
  std::tuple<Generators...> generators_;
};

template <class Model, class Operations>
class model_of final : public model_state {
 public:
  model_of(Model m, std::shared_ptr<const Operations> ops) : model_(std::move(m)), ops_(std::move(ops)) {}
  std::unique_ptr<model_state> clone() const override { return std::make_unique<model_of>(model_, ops_); }
  bool equals(const model_state& other) const override {
    return model_ == static_cast<const model_of&>(other).model_;
  }
  std::size_t hash() const override {
    if constexpr (requires { std::hash<Model>{}(model_); }) return std::hash<Model>{}(model_);
    else return 0;
  }
  step_verdict apply(std::size_t op, const arguments& a, const observed* result, std::string* model_result) override {
    return (*ops_)[op]->apply(model_, a, result, model_result);
  }

 private:
  Model model_;
  std::shared_ptr<const Operations> ops_;
};

template <class Object, class Operations>
class object_of final : public object_instance {
 public:
  template <class Factory>
  object_of(const Factory& make, std::shared_ptr<const Operations> ops) : object_(make()), ops_(std::move(ops)) {}
  std::shared_ptr<const observed> call(std::size_t op, const arguments& a) override {
    return (*ops_)[op]->call(object_, a);
  }

 private:
  Object object_;
  std::shared_ptr<const Operations> ops_;
};

}  // namespace detail

// A type-erased declaration: what check() takes. Every spec converts to one.
struct declaration {
  detail::erased_spec erased;
  lincheck::options opts;
};

// ---------------------------------------------------------------- spec

template <class Object, class Model>
class spec {
  static_assert(std::is_copy_constructible_v<Model>,
                "heddle::lincheck: the sequential model must be copyable (the verifier copies it to explore "
                "different orders)");
  static_assert(std::equality_comparable<Model>,
                "heddle::lincheck: the sequential model needs operator== (the verifier memoizes the states it "
                "reached; add `bool operator==(const Model&) const = default;`)");
  using operation_list = std::vector<std::shared_ptr<detail::typed_operation<Object, Model>>>;

 public:
  spec() {
    if constexpr (std::is_default_constructible_v<Object>) make_object_ = [] { return Object(); };
    if constexpr (std::is_default_constructible_v<Model>) make_model_ = [] { return Model(); };
  }

  // Declares an operation: its name, the object's member (or a callable taking
  // Object&), the model's member (or a callable taking Model&), and one
  // generator per parameter.
  template <class ObjectFn, class ModelFn, class... Generators>
  spec& op(std::string name, ObjectFn object_fn, ModelFn model_fn, Generators... generators) {
    static_assert(detail::known_callable<ObjectFn>,
                  "heddle::lincheck: an operation of the object must be a member function pointer "
                  "(&my_object::push) or a non-generic callable taking the object first");
    using args = typename detail::callable_traits<ObjectFn>::args;
    static_assert(std::tuple_size_v<args> == sizeof...(Generators),
                  "heddle::lincheck: give one generator per parameter of the operation, e.g. "
                  ".op(\"push\", &obj::push, &model::push, heddle::lincheck::range(1, 5)) for push(int); "
                  "a generator is range(lo, hi), values(a, b, ...), or a callable taking random_source&");
    static_assert(generators_fit<args, Generators...>(std::index_sequence_for<Generators...>{}),
                  "heddle::lincheck: a generator must be callable with heddle::lincheck::random_source& and "
                  "return a value convertible to the operation's parameter in the same position");
    using object_result = std::decay_t<typename detail::callable_traits<ObjectFn>::result>;
    constexpr bool judging = detail::judges_result<ModelFn, Model, object_result, args>::value;
    static_assert(judging || model_accepts<ModelFn, args>::value,
                  "heddle::lincheck: the model's member for this operation cannot be called with the object's "
                  "arguments; give the model a member with the same parameters (or pass a callable taking "
                  "Model& first), or one that judges the result: bool f(heddle::lincheck::returned<R>, args...)");
    if constexpr (judging || model_accepts<ModelFn, args>::value) {
      using op_type = detail::operation_of<Object, Model, ObjectFn, ModelFn, Generators...>;
      using model_result = typename op_type::model_result;
      static_assert(judging || results_compare<object_result, model_result>(),
                    "heddle::lincheck: the model's result must compare with == to the object's result; for an "
                    "operation that may block, the model returns std::optional<R> (where the object returns R) "
                    "or bool (where the object returns void), empty or false meaning \"would block\"");
      if constexpr (judging || results_compare<object_result, model_result>()) {
        ops_->push_back(std::make_shared<op_type>(object_fn, model_fn, std::move(generators)...));
        decls_.push_back({std::move(name), false, {}, {}});
      }
    }
    return *this;
  }

  // Modifiers of the operation declared last.
  spec& once() { return modify("once()", [](detail::operation_decl& d) { d.once = true; }); }
  // At most one thread of the parallel part calls the group's operations
  // (a single consumer, a single writer).
  spec& group(std::string name) {
    return modify("group()", [&](detail::operation_decl& d) { d.group = std::move(name); });
  }
  // The operation may block: it can take effect only in model states where
  // `predicate(model)` holds.
  template <class Predicate>
  spec& when(Predicate predicate) {
    static_assert(std::is_invocable_r_v<bool, const Predicate&, const Model&>,
                  "heddle::lincheck: when() takes a predicate on the model, e.g. &seq_queue::can_pop");
    if (ops_->empty()) {
      problems_.push_back("when() must follow the operation it applies to");
      return *this;
    }
    ops_->back()->enabled = [predicate](const Model& m) { return std::invoke(predicate, m); };
    return *this;
  }

  // How to build the object and the model when they have no default constructor.
  template <class Factory>
  spec& make(Factory factory) {
    make_object_ = [factory] { return factory(); };
    return *this;
  }
  template <class Factory>
  spec& make_model(Factory factory) {
    make_model_ = [factory] { return factory(); };
    return *this;
  }

  spec& threads(std::size_t n) { opts_.threads = n; return *this; }
  spec& ops_per_thread(std::size_t n) { opts_.ops_per_thread = n; return *this; }
  spec& init_ops(std::size_t n) { opts_.init_ops = n; return *this; }
  spec& post_ops(std::size_t n) { opts_.post_ops = n; return *this; }
  spec& scenarios(std::size_t n) { opts_.scenarios = n; return *this; }
  spec& iterations(std::uint64_t n) { opts_.iterations = n; return *this; }
  spec& strategy(std::string s) { opts_.strategy = std::move(s); return *this; }
  spec& seed(std::uint64_t s) { opts_.seed = s; return *this; }
  spec& check(lincheck::consistency c) { opts_.consistency = c; return *this; }
  spec& minimize(bool on) { opts_.minimize = on; return *this; }
  spec& max_steps(std::uint64_t n) { opts_.max_steps = n; return *this; }
  spec& fail_on_max_steps(bool on) { opts_.fail_on_max_steps = on; return *this; }
  spec& print_report(bool on) { opts_.print_report = on; return *this; }
  spec& memory(memory_policy policy) { opts_.memory = policy; return *this; }
  spec& detect_races(bool on) { opts_.detect_races = on; return *this; }
  spec& with(const lincheck::options& o) { opts_ = o; return *this; }
  const lincheck::options& opts() const { return opts_; }

  operator declaration() const {  // NOLINT(google-explicit-constructor): a spec is a declaration
    declaration d;
    d.opts = opts_;
    d.erased.problems = problems_;
    std::shared_ptr<const operation_list> ops = ops_;
    for (std::size_t i = 0; i < decls_.size(); ++i) {
      detail::operation_decl decl = decls_[i];
      decl.generate = [ops, i](random_source& r) { return (*ops)[i]->generate(r); };
      d.erased.ops.push_back(std::move(decl));
    }
    if (make_object_) {
      auto make = make_object_;
      d.erased.make_object = [make, ops]() -> std::unique_ptr<detail::object_instance> {
        return std::make_unique<detail::object_of<Object, operation_list>>(make, ops);
      };
    } else {
      d.erased.problems.push_back("the object under test has no default constructor: say how to build it with "
                                  ".make([] { return Object(...); })");
    }
    if (make_model_) {
      auto make = make_model_;
      d.erased.make_model = [make, ops]() -> std::unique_ptr<detail::model_state> {
        return std::make_unique<detail::model_of<Model, operation_list>>(make(), ops);
      };
    } else {
      d.erased.problems.push_back("the model has no default constructor: say how to build it with "
                                  ".make_model([] { return Model(...); })");
    }
    return d;
  }

  // A call record for hand-made histories (verifier tests, examples):
  // record("push", thread, invoked, responded, result, args...). Use
  // heddle::lincheck::no_result for a void operation or a pending call.
  template <class Result, class... Args>
  call_record record(const std::string& op_name, std::size_t thread, std::uint64_t invoked,
                     std::optional<std::uint64_t> responded, Result result, Args... args) const;

 private:
  template <class Args, class... Generators, std::size_t... I>
  static constexpr bool generators_fit(std::index_sequence<I...>) {
    if constexpr (sizeof...(Generators) != std::tuple_size_v<Args>) {
      return true;  // reported by the arity check
    } else {
      return (generator_fits<Generators, std::tuple_element_t<I, Args>>() && ...);
    }
  }
  template <class G, class T>
  static constexpr bool generator_fits() {
    if constexpr (std::is_invocable_v<const G&, random_source&>)
      return std::is_convertible_v<std::invoke_result_t<const G&, random_source&>, T>;
    else
      return false;
  }
  template <class ModelFn, class Args>
  struct model_accepts;
  template <class ModelFn, class... A>
  struct model_accepts<ModelFn, std::tuple<A...>> : std::is_invocable<const ModelFn&, Model&, const A&...> {};
  template <class R, class M>
  static constexpr bool results_compare() {
    if constexpr (std::is_void_v<R>) return std::is_void_v<M> || std::is_same_v<M, bool>;
    else if constexpr (std::is_void_v<M>) return false;
    else if constexpr (!detail::is_optional<R>::value && detail::is_optional<M>::value)
      return std::equality_comparable_with<R, typename M::value_type>;
    else return std::equality_comparable_with<R, M>;
  }
  spec& modify(const char* what, const std::function<void(detail::operation_decl&)>& f) {
    if (decls_.empty()) problems_.push_back(std::string(what) + " must follow the operation it applies to");
    else f(decls_.back());
    return *this;
  }

  std::shared_ptr<operation_list> ops_ = std::make_shared<operation_list>();
  std::vector<detail::operation_decl> decls_;
  std::vector<std::string> problems_;
  std::function<Object()> make_object_;
  std::function<Model()> make_model_;
  lincheck::options opts_;
};

// ---------------------------------------------------------------- results

// A scenario that failed, after minimization.
struct failure {
  std::string kind;                 // "non-linearizable", "deadlock", "livelock", "crash", ...
  std::optional<bug_kind> bug;      // set when heddle itself found a bug (deadlock, assertion, ...)
  std::string message;              // why: the verifier's explanation or heddle's bug message
  std::string scenario;             // the (minimal) scenario, as text
  std::size_t threads = 0;          // threads of its parallel part
  std::size_t parallel_calls = 0;   // calls in its parallel part
  std::vector<std::string> operations;  // operations it calls, in scenario order
  std::size_t scenario_index = 0;   // which generated scenario failed first
  std::size_t original_calls = 0;   // calls before minimization
  std::size_t reductions = 0;       // removals minimization kept
  std::size_t reductions_on_recorded_schedule = 0;  // of those, found by following the failing schedule
  std::string report;               // everything above plus the interleaving, as printed
  std::string trace_file;           // its trace for `heddle replay` (HEDDLE_LINCHECK_TEST with --out), if saved
  // The runner's iteration it failed in, when the runner searched (heddle test):
  // `heddle merge` keeps the shard whose failure came first.
  std::optional<std::uint64_t> iteration;
};

struct result {
  std::size_t scenarios = 0;      // scenarios run
  std::uint64_t runs = 0;         // executions (schedules) in all
  std::uint64_t skipped_runs = 0; // runs that hit max_steps and were not judged
  std::uint64_t steps = 0;        // scheduling decisions over all runs
  std::uint64_t atomic_steps = 0; // of those, at atomic operations (heddle::atomic or instrumented code)
  std::uint64_t memory_steps = 0; // of those, at plain memory accesses of instrumented code
  std::optional<lincheck::failure> failure;
  std::chrono::nanoseconds elapsed{0};
  explicit operator bool() const noexcept { return !failure; }
};

// A declaration mistake found at run time (duplicate names, zero threads...).
class declaration_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Runs the declared check. Throws declaration_error (one line) before any
// scenario runs when the declaration or its options are wrong. Call it outside
// heddle::explore: it runs its own controlled executions.
result check(const declaration& d);

// Checks one history against a declaration's model (verifier tests, or
// histories recorded elsewhere).
verdict check_history(const declaration& d, const history& h, consistency condition,
                      bool pending_must_block = false);

// The scenario check() would generate from `r` (to inspect restrictions).
scenario generate(const declaration& d, random_source& r);

// Marks "no result" in spec::record: a void operation, or a pending call.
struct no_result_t {};
inline constexpr no_result_t no_result{};

template <class Object, class Model>
template <class Result, class... Args>
call_record spec<Object, Model>::record(const std::string& op_name, std::size_t thread, std::uint64_t invoked,
                                        std::optional<std::uint64_t> responded, Result result,
                                        Args... args) const {
  call_record c;
  for (std::size_t i = 0; i < decls_.size(); ++i)
    if (decls_[i].name == op_name) c.op = i;
  c.args = std::make_shared<detail::arguments_of<std::tuple<Args...>>>(std::tuple<Args...>{args...});
  if constexpr (std::is_same_v<Result, no_result_t>) {
    if (responded) c.result = std::make_shared<detail::observed_void>();
  } else {
    c.result = std::make_shared<detail::observed_of<Result>>(std::move(result));
  }
  c.thread = thread;
  c.part = thread == 0 ? part::init : part::parallel;
  c.invoked = invoked;
  c.responded = responded;
  if (!responded) c.result = nullptr;
  return c;
}

namespace detail {
// What HEDDLE_LINCHECK_TEST runs (registered.cpp): check() with the options
// the HEDDLE_* variables and --heddle_* flags override, a GoogleTest failure
// with the report (or the declaration error) when it fails, and the test's
// record for `heddle test`.
void run_test(const char* suite, const char* name, const char* file, int line, const declaration& d);
// Runs one given scenario as check() runs a generated one (the RapidCheck
// front end, which shrinks on its own, turns minimization off).
result check_scenario(const declaration& d, const scenario& sc);
}  // namespace detail

}  // namespace heddle::lincheck

