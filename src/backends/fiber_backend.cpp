#include "backends/fiber_backend.hpp"

#include <memory>
#include <utility>

namespace heddle::detail {

namespace ctx = boost::context;

namespace {

// Draws from the pool and remembers where the stack lies.
class recording_allocator {
 public:
  recording_allocator(stack_pool& pool, const void*& bottom, std::size_t& size) noexcept
      : pool_(&pool), bottom_(&bottom), size_(&size) {}
  ctx::stack_context allocate() {
    ctx::stack_context sc = pool_->allocate();
    *bottom_ = static_cast<const char*>(sc.sp) - sc.size;  // sp is the top: stacks grow down
    *size_ = sc.size;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept { pool_->deallocate(sc); }

 private:
  stack_pool* pool_;
  const void** bottom_;
  std::size_t* size_;
};

}  // namespace

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
  s.context = ctx::fiber(std::allocator_arg, recording_allocator(pool_, s.stack_bottom, s.stack_size),
                         [this, index](ctx::fiber&& caller) {
    fiber_switch::finish(nullptr, &slots_[from_].stack_bottom, &slots_[from_].stack_size);
    if (caller) slots_[from_].context = std::move(caller);
    const std::size_t next = main_(engine_, index);
    slot& target = at(next);
    if (!target.created) create(next);
    from_ = index;
    // Returning the next fiber ends this one; its stack goes back to the pool.
    fiber_switch::start(nullptr, slots_[next].stack_bottom, slots_[next].stack_size);
    return std::move(slots_[next].context);
  });
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
