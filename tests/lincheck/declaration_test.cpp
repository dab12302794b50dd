// Declaration mistakes that only show at run time: check() says what is wrong
// in one line, before any scenario runs.
#include <gtest/gtest.h>

#include "stack.hpp"

namespace {

using examples::fixed_stack;
using examples::seq_stack;
using heddle::lincheck::declaration_error;
using heddle::lincheck::spec;

std::string error_of(const heddle::lincheck::declaration& d) {
  try {
    (void)heddle::lincheck::check(d);
  } catch (const declaration_error& e) {
    return e.what();
  }
  return "no error";
}

auto base() { return examples::stack_spec<fixed_stack>().print_report(false); }

TEST(lincheck_declaration, duplicate_operation_names_are_rejected) {
  EXPECT_EQ(error_of(base().op("push", &fixed_stack::pop, &seq_stack::pop)),
            "heddle lincheck: two operations are named 'push': give each a distinct name");
}

TEST(lincheck_declaration, zero_threads_or_calls_are_rejected) {
  EXPECT_EQ(error_of(base().threads(0)), "heddle lincheck: threads(0): the parallel part needs at least one thread");
  EXPECT_EQ(error_of(base().ops_per_thread(0)),
            "heddle lincheck: ops_per_thread(0): each thread needs at least one call");
  EXPECT_EQ(error_of(base().iterations(0)), "heddle lincheck: iterations(0): each scenario needs at least one run");
}

TEST(lincheck_declaration, an_unknown_strategy_is_named) {
  const std::string e = error_of(base().strategy("bogus"));
  EXPECT_NE(e.find("heddle lincheck: unknown strategy 'bogus'"), std::string::npos) << e;
}

TEST(lincheck_declaration, too_many_calls_for_the_verifier) {
  EXPECT_EQ(error_of(base().threads(8).ops_per_thread(8)),
            "heddle lincheck: a scenario of 66 calls (1 init + 8 threads x 8 + 1 post) is more than the verifier's 64");
}

TEST(lincheck_declaration, no_operations_and_misplaced_modifiers) {
  EXPECT_EQ(error_of(spec<fixed_stack, seq_stack>()),
            "heddle lincheck: no operations declared: add at least one with .op(name, &Object::f, &Model::f, "
            "generators...)");
  EXPECT_EQ(error_of(spec<fixed_stack, seq_stack>().once()),
            "heddle lincheck: once() must follow the operation it applies to");
}

struct needs_capacity {
  explicit needs_capacity(int) {}
  int size() { return 0; }
};
struct size_model {
  int size() const { return 0; }
  bool operator==(const size_model&) const = default;
};

TEST(lincheck_declaration, an_object_without_default_constructor_needs_make) {
  const auto s = spec<needs_capacity, size_model>().op("size", &needs_capacity::size, &size_model::size);
  EXPECT_NE(error_of(s).find("has no default constructor: say how to build it with .make("), std::string::npos);
  EXPECT_EQ(error_of(spec<needs_capacity, size_model>()
                         .op("size", &needs_capacity::size, &size_model::size)
                         .make([] { return needs_capacity(4); })
                         .scenarios(2)
                         .print_report(false)),
            "no error");
}

// once() and group(): restrictions on generated scenarios.
TEST(lincheck_declaration, once_and_group_restrict_scenarios) {
  struct log_object {
    void init() {}
    void consume() {}
    void produce() {}
  };
  struct log_model {
    void init() {}
    void consume() {}
    void produce() {}
    bool operator==(const log_model&) const = default;
  };
  const heddle::lincheck::declaration d = spec<log_object, log_model>()
                                              .op("init", &log_object::init, &log_model::init)
                                              .once()
                                              .op("consume", &log_object::consume, &log_model::consume)
                                              .group("consumer")
                                              .op("produce", &log_object::produce, &log_model::produce)
                                              .threads(3)
                                              .ops_per_thread(4);
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    heddle::lincheck::random_source r(seed);
    const auto sc = heddle::lincheck::generate(d, r);
    std::size_t inits = 0;
    std::size_t consumer_threads = 0;
    for (const auto& a : sc.init) inits += a.op == 0;
    for (const auto& a : sc.post) inits += a.op == 0;
    for (const auto& t : sc.threads) {
      bool consumes = false;
      for (const auto& a : t) {
        inits += a.op == 0;
        consumes = consumes || a.op == 1;
      }
      consumer_threads += consumes;
    }
    EXPECT_LE(inits, 1u);
    EXPECT_LE(consumer_threads, 1u);
  }
}

}  // namespace
