#include "backends/fiber_backend.hpp"

#include "heddle/model.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#ifdef HEDDLE_FIBER_JUMP
// heddle_jump_fcontext(to, data): Boost.Context 1.74's jump_fcontext for
// x86-64 System V (jump_x86_64_sysv_elf_gas.S), frame for frame: it saves
// MXCSR and the x87 control word, r12-r15, rbx, rbp and the return address in
// 0x40 bytes below the stack pointer, returns {old frame, data} in rax:rdx,
// and resumes `to` at its saved return address. Frames it saves are resumed
// by Boost's own jumps (fiber creation, parking, unwinding) and the other way
// round. Two differences. MXCSR and the control word are loaded only when
// the target's saved value differs from the current one (ldmxcsr and fldcw
// are the costly part of a switch), so the target runs with its own state
// exactly as after Boost's jump. And the target is resumed with `ret` (its
// saved return address is on top of its stack), not Boost's `jmp *%r8`: the
// call into this function pushed a return address on the CPU's return stack
// buffer, and a jump leaves it there, so the resumed fiber's next return is
// predicted to go where the left one's would have: a misprediction at every
// switch. With `ret` that entry is consumed, and it is usually right: both
// fibers were paused by the same call in the engine's decision path, so the
// target's return address is the one pushed, and so is its caller's next.
asm(R"(
        .text
        .globl  heddle_jump_fcontext
        .hidden heddle_jump_fcontext
        .type   heddle_jump_fcontext, @function
        .p2align 4
heddle_jump_fcontext:
        leaq    -0x38(%rsp), %rsp
        stmxcsr (%rsp)
        fnstcw  0x4(%rsp)
        movq    %r12, 0x8(%rsp)
        movq    %r13, 0x10(%rsp)
        movq    %r14, 0x18(%rsp)
        movq    %r15, 0x20(%rsp)
        movq    %rbx, 0x28(%rsp)
        movq    %rbp, 0x30(%rsp)
        movq    %rsp, %rax
        movq    %rdi, %rsp
        movl    (%rax), %ecx
        cmpl    %ecx, (%rsp)
        je      1f
        ldmxcsr (%rsp)
1:      movzwl  0x4(%rax), %ecx
        cmpw    %cx, 0x4(%rsp)
        je      2f
        fldcw   0x4(%rsp)
2:      movq    0x8(%rsp), %r12
        movq    0x10(%rsp), %r13
        movq    0x18(%rsp), %r14
        movq    0x20(%rsp), %r15
        movq    0x28(%rsp), %rbx
        movq    0x30(%rsp), %rbp
        leaq    0x38(%rsp), %rsp
        movq    %rsi, %rdx
        movq    %rax, %rdi
        ret
        .size   heddle_jump_fcontext, .-heddle_jump_fcontext
)");
#endif

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

fiber_backend::fiber_backend(std::size_t stack_size) : pool_(stack_pool::for_this_thread(stack_size)) {
  slots_ = std::move(spare_slots());
}

fiber_backend::fiber_backend(stack_pool& pool, bool own_thread_state)
    : pool_(pool), own_thread_state_(own_thread_state), in_fork_child_(own_thread_state) {
  unusual_switch_ = in_fork_child_ || announced_;
  slots_ = std::move(spare_slots());
}

void fiber_backend::switch_unusually(std::size_t from, std::size_t to) {
  if (in_fork_child_) return switch_in_fork_child(from, to);
  switch_fiber<true>(from, to);
}

void fiber_backend::switch_in_fork_child(std::size_t from, std::size_t to) {
  if (to == 0 && has_scheduler_hook()) call_scheduler_hook();
  if (!own_thread_state_) return announced_ ? switch_fiber<true>(from, to) : switch_fiber(from, to);
  // Kept in this fiber's frame while others run.
  eh_globals* const eh = __cxa_get_globals();
  const eh_globals saved_eh = *eh;
  const int saved_errno = errno;
  if (storage_bytes_ != 0) save_thread_storage(from);
  if (announced_) switch_fiber<true>(from, to);
  else switch_fiber(from, to);
  // Resumed: this fiber's slot is `from` again.
  if (storage_bytes_ != 0) restore_thread_storage(from);
  errno = saved_errno;
  *eh = saved_eh;
}

void fiber_backend::keep_thread_storage_per_operation(std::vector<thread_storage_block> blocks) {
  storage_ = std::move(blocks);
  storage_bytes_ = 0;
  for (const thread_storage_block& b : storage_) storage_bytes_ += b.size;
}

void fiber_backend::save_thread_storage(std::size_t index) {
  std::vector<std::byte>& copy = at(index).thread_storage;
  copy.resize(storage_bytes_);
  std::byte* out = copy.data();
  for (const thread_storage_block& b : storage_) {
    std::memcpy(out, b.live, b.size);
    out += b.size;
  }
}

void fiber_backend::restore_thread_storage(std::size_t index) noexcept {
  const std::vector<std::byte>& copy = slots_[index].thread_storage;
  if (copy.size() != storage_bytes_) return;
  const std::byte* in = copy.data();
  for (const thread_storage_block& b : storage_) {
    std::memcpy(b.live, in, b.size);
    in += b.size;
  }
}

void fiber_backend::fresh_thread_state() noexcept {
  if (!own_thread_state_) return;
  errno = 0;
  *__cxa_get_globals() = {};
  // A new thread's thread_local variables, but main's are the thread's own.
  if (started_any_) {
    for (const thread_storage_block& b : storage_) {
      std::memcpy(b.live, b.image, b.image_size);
      std::memset(b.live + b.image_size, 0, b.size - b.image_size);
    }
  }
  started_any_ = true;
}

std::vector<fiber_backend::slot>& fiber_backend::spare_slots() {
  thread_local std::vector<slot> spare;
  return spare;
}

fiber_backend::~fiber_backend() {
  // Only a clean table (every iteration ended: no fiber, no slot marked
  // created past the scheduler's, no thread-local storage kept) is kept.
  if (storage_bytes_ != 0) return;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].context || (i != 0 && slots_[i].created)) return;
  std::vector<slot>& spare = spare_slots();
  if (slots_.capacity() > spare.capacity()) spare = std::move(slots_);
}

void fiber_backend::begin_iteration(operation_main main, void* engine) {
  main_ = main;
  engine_ = engine;
  from_ = 0;
  at(0).created = true;  // the scheduler: the calling thread's own context
}

fiber_backend::slot& fiber_backend::at(std::size_t index) {
  // Grown by doubling.
  if (index >= slots_.size()) slots_.resize(std::max(index + 1, 2 * slots_.size()));
  return slots_[index];
}

void fiber_backend::create(std::size_t index) {
  slot& s = at(index);
  s.created = true;
  origins_.push_back(static_cast<std::uint32_t>(index));
  if (idle_.empty()) return make_fiber(index);
  idle_fiber& f = idle_.back();
  s.context = std::move(f.context);
  s.stack_bottom = f.stack_bottom;
  s.stack_size = f.stack_size;
  idle_.pop_back();
  assigned_ = index;
}

// A fiber runs one operation after another: when its operation has finished it
// parks (the fiber it switches to stores its continuation into its slot), and
// end_iteration() moves it to idle_, where create() takes it for an operation
// of a later iteration. Creating a fiber (its record on the stack, the first
// entry, the exit back through ontop_fcontext) was about a tenth of a short
// iteration's set-up.
void fiber_backend::make_fiber(std::size_t index) {
  slot& s = at(index);
  // Room to retire this stack without allocating in deallocate() (noexcept).
  if (hb != nullptr && retired_.capacity() < index + 1) retired_.reserve(2 * (index + 1));
  s.context = ctx::fiber(std::allocator_arg, recording_allocator(pool_, retired_, s.stack_bottom, s.stack_size),
                         [this, index](ctx::fiber&& caller) {
    if (announced_) fiber_switch::finish(nullptr, &slots_[from_].stack_bottom, &slots_[from_].stack_size);
    if (caller) slots_[from_].context = std::move(caller);
    for (std::size_t serving = index;; serving = assigned_) {
      fresh_thread_state();
      const std::size_t next = main_(engine_, serving);
      if (!announced_) {
        // Returns when create() hands this parked fiber another operation.
        // The fiber ends when destroyed while parked (forced unwind).
        switch_now(serving, next);
        continue;
      }
      // Under AddressSanitizer the fiber ends with its operation instead: ASan
      // loses track of a fiber resumed for another operation (it takes the
      // fiber's stack for the thread's and skips the clean-up an exception
      // needs, then reports false stack-buffer-overflows).
      if (next >= slots_.size() || !slots_[next].created) create(next);
      from_ = serving;
      fiber_switch::start(nullptr, slots_[next].stack_bottom, slots_[next].stack_size);
      return std::move(slots_[next].context);
    }
  });
}

void fiber_backend::abandon(std::size_t index) {
  // The fiber is suspended inside a destructor that tried to block while its
  // operation was being unwound. Destroying the handle would unwind it a
  // second time, so it is deliberately leaked along with its stack.
  slot& s = at(index);
  if (s.context) new ctx::fiber(std::move(s.context));  // NOLINT: intentional leak
}

// Only the slots that fibers were created in are marked created: the
// iteration's, not every slot of the table.
void fiber_backend::end_iteration() {
  for (const std::uint32_t i : origins_) {
    slot& s = slots_[i];
    // Every operation has finished (or was abandoned, its fiber leaked):
    // what is left in a slot is a parked fiber.
    if (s.created && s.context) idle_.push_back({std::move(s.context), s.stack_bottom, s.stack_size});
    s.created = false;
  }
  origins_.clear();
  for (ctx::stack_context& sc : retired_) pool_.deallocate(sc);
  retired_.clear();
}

}  // namespace heddle::detail
