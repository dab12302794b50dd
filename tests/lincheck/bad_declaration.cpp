// Declarations lincheck must reject at compile time; BAD_CASE picks one. Each
// case is compiled by a CTest test that expects the static_assert message.
#include <heddle/lincheck/spec.hpp>

namespace {

struct object {
  void push(int) {}
  int size() { return 0; }
};
struct model {
  void push(int) {}
  void push_text(const char*) {}
  std::string size() const { return {}; }
  int count() const { return 0; }
  bool operator==(const model&) const = default;
};
struct model_without_equality {
  void push(int) {}
};

[[maybe_unused]] void declare() {
  using heddle::lincheck::spec;
#if BAD_CASE == 1  // push(int) without a generator
  spec<object, model>().op("push", &object::push, &model::push);
#elif BAD_CASE == 2  // the model's member takes other parameters
  spec<object, model>().op("push", &object::push, &model::push_text, heddle::lincheck::range(1, 3));
#elif BAD_CASE == 3  // results of different types
  spec<object, model>().op("size", &object::size, &model::size);
#elif BAD_CASE == 4  // a model the verifier cannot compare
  spec<object, model_without_equality>().op("push", &object::push, &model_without_equality::push,
                                            heddle::lincheck::range(1, 3));
#elif BAD_CASE == 5  // a generator that is not one
  spec<object, model>().op("push", &object::push, &model::push, 42);
#else  // the correct declaration compiles
  spec<object, model>().op("push", &object::push, &model::push, heddle::lincheck::range(1, 3))
      .op("size", &object::size, &model::count);
#endif
}

}  // namespace
