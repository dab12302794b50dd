#include "backends/fiber_backend.hpp"

#include <memory>
#include <utility>

// Under AddressSanitizer every switch is announced (start) and acknowledged
// (finish), so ASan knows which stack is live: without it, an exception
// unwinding a fiber, or a fiber's first frames, look like stack-buffer
// overflows to it. Boost.Context does this itself only for its ucontext
// implementation; Debian's is fcontext.
#if defined(__SANITIZE_ADDRESS__)
#define HEDDLE_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEDDLE_ASAN_FIBERS 1
#endif
#endif
#ifdef HEDDLE_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

namespace heddle::detail {

namespace ctx = boost::context;

namespace {

// Announces a switch to the stack [bottom, bottom + size). `fake_stack` keeps
// the leaving fiber's fake stack for its return; null says it never returns.
inline void start_switch([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* bottom,
                         [[maybe_unused]] std::size_t size) noexcept {
#ifdef HEDDLE_ASAN_FIBERS
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#endif
}

// Acknowledges arrival; reports the stack we came from.
inline void finish_switch([[maybe_unused]] void* fake_stack, [[maybe_unused]] const void** from_bottom,
                          [[maybe_unused]] std::size_t* from_size) noexcept {
#ifdef HEDDLE_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fake_stack, from_bottom, from_size);
#endif
}

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
    finish_switch(nullptr, &slots_[from_].stack_bottom, &slots_[from_].stack_size);
    if (caller) slots_[from_].context = std::move(caller);
    const std::size_t next = main_(engine_, index);
    slot& target = at(next);
    if (!target.created) create(next);
    from_ = index;
    // Returning the next fiber ends this one; its stack goes back to the pool.
    start_switch(nullptr, slots_[next].stack_bottom, slots_[next].stack_size);
    return std::move(slots_[next].context);
  });
}

void fiber_backend::switch_to(std::size_t from, std::size_t to) {
  if (to >= slots_.size() || !slots_[to].created) create(to);
  from_ = from;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, slots_[to].stack_bottom, slots_[to].stack_size);
  ctx::fiber back = std::move(slots_[to].context).resume();
  // Resumed: `from_` now names whoever switched to us.
  finish_switch(fake_stack, &slots_[from_].stack_bottom, &slots_[from_].stack_size);
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
