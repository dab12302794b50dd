#include "backends/fiber_backend.hpp"

#include <memory>
#include <utility>

namespace heddle::detail {

namespace ctx = boost::context;

fiber_backend::fiber_backend(std::size_t stack_size) : pool_(stack_pool::for_this_thread(stack_size)) {}

fiber_backend::~fiber_backend() = default;

void fiber_backend::begin_iteration(operation_main main, void* engine) {
  main_ = main;
  engine_ = engine;
  from_ = 0;
  at(0).created = true;  // the scheduler: the calling thread's own context
}

fiber_backend::slot& fiber_backend::at(std::size_t index) {
  if (index >= slots_.size()) slots_.resize(index + 1);
  return slots_[index];
}

void fiber_backend::create(std::size_t index) {
  slot& s = at(index);
  s.created = true;
  s.context = ctx::fiber(std::allocator_arg, pooled_stack_allocator(pool_), [this, index](ctx::fiber&& caller) {
    if (caller) slots_[from_].context = std::move(caller);
    const std::size_t next = main_(engine_, index);
    slot& target = at(next);
    if (!target.created) create(next);
    from_ = index;
    // Returning the next fiber ends this one; its stack goes back to the pool.
    return std::move(slots_[next].context);
  });
}

void fiber_backend::switch_to(std::size_t from, std::size_t to) {
  if (to >= slots_.size() || !slots_[to].created) create(to);
  from_ = from;
  ctx::fiber back = std::move(slots_[to].context).resume();
  // Resumed: `from_` now names whoever switched to us.
  if (back) slots_[from_].context = std::move(back);
}

void fiber_backend::abandon(std::size_t index) {
  // The fiber is suspended inside a destructor that tried to block while its
  // operation was being unwound. Destroying the handle would unwind it a
  // second time, so it is deliberately leaked along with its stack.
  slot& s = at(index);
  if (s.context) new ctx::fiber(std::move(s.context));  // NOLINT: intentional leak
}

void fiber_backend::end_iteration() {
  for (std::size_t i = 1; i < slots_.size(); ++i) slots_[i].created = false;
}

}  // namespace heddle::detail
