#include "backends/fiber_backend.hpp"

#include "heddle/model.hpp"

#include <memory>
#include <utility>

namespace heddle::detail {

namespace ctx = boost::context;

namespace {

// Draws from the pool and remembers where the stack lies. A finished
// operation's stack goes back to the pool at once, for the next operation of
// the iteration to start on, except while a race detector listens (a program
// built with -fsanitize=thread): to it, that operation's stores and the next
// one's to the same addresses would look like a race between two operations
// nothing orders. Those stacks go back at the end of the iteration.
class recording_allocator {
 public:
  recording_allocator(stack_pool& pool, std::vector<ctx::stack_context>& retired, const void*& bottom,
                      std::size_t& size) noexcept
      : pool_(&pool), retired_(&retired), bottom_(&bottom), size_(&size) {}
  ctx::stack_context allocate() {
    ctx::stack_context sc = pool_->allocate();
    *bottom_ = static_cast<const char*>(sc.sp) - sc.size;  // sp is the top: stacks grow down
    *size_ = sc.size;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    if (hb != nullptr && retired_->size() < retired_->capacity()) retired_->push_back(sc);
    else pool_->deallocate(sc);
  }

 private:
  stack_pool* pool_;
  std::vector<ctx::stack_context>* retired_;
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
  // Room to retire this stack without allocating in deallocate() (noexcept).
  if (hb != nullptr && retired_.capacity() < index + 1) retired_.reserve(2 * (index + 1));
  s.context = ctx::fiber(std::allocator_arg, recording_allocator(pool_, retired_, s.stack_bottom, s.stack_size),
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
  for (ctx::stack_context& sc : retired_) pool_.deallocate(sc);
  retired_.clear();
}

}  // namespace heddle::detail
