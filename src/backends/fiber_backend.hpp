// The fiber backend: every operation of an iteration is a Boost.Context fiber
// on the calling OS thread. Switches go directly from one operation to the
// next (one context switch per decision), not through the scheduler. Fibers
// outlive their operations: one whose operation finished is parked and runs an
// operation of a later iteration (never of the same one: a race detector
// would see the two operations' stack writes as a race).
//
// Limits users must know: thread_local is per OS thread, so it is shared by all
// operations; an operation must not make a real blocking call (it would block
// every operation). A backend made with `own_thread_state` (the fork server's
// child, for programs whose threads become operations) gives each operation
// its own errno and C++ exception state (the exceptions it is handling and
// the count of those in flight), which the C library and the C++ runtime keep
// per thread: each fiber saves them in its frame when it switches away and
// puts them back when it is resumed. Such a backend can also be given blocks
// of static thread-local storage (keep_thread_storage_per_operation: the
// program's thread_local variables): each operation then has its own copy,
// kept in its slot while others run and copied back when it is resumed, and
// an operation starts with the blocks' initial images, as a new thread does
// (the first operation, main, with what the thread had).
#pragma once

#include <cerrno>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>

#include "backends/stack_pool.hpp"
#include "engine/backend.hpp"

// Under AddressSanitizer every switch is announced (start) and acknowledged
// (finish), so ASan knows which stack is live: without it, an exception
// unwinding a fiber, or a fiber's first frames, look like stack-buffer
// overflows to it. Boost.Context does this itself only for its ucontext
// implementation; Debian's is fcontext. "Under AddressSanitizer" is decided
// when the backend is made: this library built with it, or a program built
// with it that links this library (fiber_switch::announced()).
#if defined(__SANITIZE_ADDRESS__)
#define HEDDLE_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEDDLE_ASAN_FIBERS 1
#endif
#endif
#ifdef HEDDLE_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#else
// A test built with -fsanitize=address may link this library built without
// it: the ASan runtime is in the process all the same, and it must be told of
// every switch or it reports false stack-buffer-overflows in the fibers (an
// exception unwinding one, a stack reused). Its fiber interface, weak: null
// unless the process has ASan.
extern "C" {
__attribute__((weak)) void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom,
                                                          std::size_t size);
__attribute__((weak)) void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                                           std::size_t* size_old);
}
#endif

namespace heddle::detail {
// A block of static thread-local storage: a module's PT_TLS segment as the
// calling thread holds it.
struct thread_storage_block {
  std::byte* live;            // the thread's copy
  std::size_t size;           // the segment's p_memsz
  const std::byte* image;     // its initial image: `image_size` bytes, then zeros
  std::size_t image_size;
};

// The C++ runtime's per-thread exception state (Itanium C++ ABI 2.2.2).
struct eh_globals {
  void* caught_exceptions;
  unsigned int uncaught_exceptions;
};
}  // namespace heddle::detail

extern "C" heddle::detail::eh_globals* __cxa_get_globals() noexcept;

// The switch of the decision path (fiber_backend.cpp): Boost.Context's
// jump_fcontext, the same frame and the same result, except that the saved
// floating-point control state (MXCSR, the x87 control word) is loaded only
// where it differs from the state being left: ldmxcsr and fldcw of an unchanged
// value cost about 8 ns per switch on this project's machines, against 2.5 ns
// for the rest of the switch (docs/performance.md). The state a fiber sees
// after a switch is its own either way. x86-64 System V (ELF) only; elsewhere
// Boost's switch is used.
#if defined(__x86_64__) && defined(__ELF__)
#define HEDDLE_FIBER_JUMP 1
// Not noexcept: destroying a parked fiber resumes it with an exception
// (Boost's forced_unwind) that leaves through this call.
extern "C" __attribute__((visibility("hidden"))) boost::context::detail::transfer_t heddle_jump_fcontext(
    boost::context::detail::fcontext_t to, void* data);
#endif

namespace heddle::detail {

namespace fiber_switch {
// Whether switches are announced to AddressSanitizer: always when this
// library is built with it, else when the process has ASan's runtime.
inline bool announced() noexcept {
#ifdef HEDDLE_ASAN_FIBERS
  return true;
#else
  return &__sanitizer_start_switch_fiber != nullptr && &__sanitizer_finish_switch_fiber != nullptr;
#endif
}

// Announces a switch to the stack [bottom, bottom + size). `fake_stack` keeps
// the leaving fiber's fake stack for its return; null says it never returns.
// Only where announced().
inline void start(void** fake_stack, const void* bottom, std::size_t size) noexcept {
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
}

// Acknowledges arrival; reports the stack we came from. Only where announced().
inline void finish(void* fake_stack, const void** from_bottom, std::size_t* from_size) noexcept {
  __sanitizer_finish_switch_fiber(fake_stack, from_bottom, from_size);
}
}  // namespace fiber_switch

class fiber_backend final : public backend {
 public:
  // Stacks of `stack_size` usable bytes from this thread's pool.
  explicit fiber_backend(std::size_t stack_size);
  // Stacks from `pool`, which must outlive every fiber of this backend (the
  // fork server's child: a pool that is never destroyed, since the program's
  // exit runs on one of its stacks). See the file comment for `own_thread_state`.
  fiber_backend(stack_pool& pool, bool own_thread_state);
  ~fiber_backend() override;

  void begin_iteration(operation_main main, void* engine) override;
  void switch_to(std::size_t from, std::size_t to) override { switch_now(from, to); }
  // The switch itself, inline: the engine holds a fiber_backend when it runs
  // on one and calls this directly, so a decision reaches jump_fcontext
  // without a virtual call or another frame (docs/design.md).
  // `to` has a slot (reserve_slot).
  void switch_now(std::size_t from, std::size_t to) {
    if (!slots_[to].created) [[unlikely]] create(to);
    if (unusual_switch_) [[unlikely]] return switch_unusually(from, to);
    switch_fiber(from, to);
  }
  // Makes room for slot `index` before anything switches to it: the engine
  // reserves an operation's slot when it creates it (engine::spawn), so a
  // switch does not test the table's size.
  void reserve_slot(std::size_t index) {
    if (index >= slots_.size()) [[unlikely]] at(index);
  }
  void abandon(std::size_t slot) override;
  void end_iteration() override;
  std::string_view name() const override { return "fibers"; }

  // With own_thread_state: every operation gets its own copy of `blocks`
  // (see the file's comment). Before the first operation starts.
  void keep_thread_storage_per_operation(std::vector<thread_storage_block> blocks);

  void on_scheduler_resumed(void (*hook)(void*), void* argument) noexcept override {
    backend::on_scheduler_resumed(hook, argument);
    in_fork_child_ = hook != nullptr || own_thread_state_;
    unusual_switch_ = in_fork_child_ || announced_;
  }

 private:
  // The switch; announced to AddressSanitizer when `announce` (a constant at
  // each call: the decision path's copy has no test).
  template <bool announce = false>
  void switch_fiber(std::size_t from, std::size_t to) {
    from_ = from;
    void* fake_stack = nullptr;
    if constexpr (announce) fiber_switch::start(&fake_stack, slots_[to].stack_bottom, slots_[to].stack_size);
#ifdef HEDDLE_FIBER_JUMP
    // fiber::resume(), with heddle_jump_fcontext for Boost's jump_fcontext.
    void* const target = std::exchange(raw_context(slots_[to].context), nullptr);
    const boost::context::detail::transfer_t back = heddle_jump_fcontext(target, nullptr);
    // Resumed: `from_` now names whoever switched to us.
    if constexpr (announce) fiber_switch::finish(fake_stack, &slots_[from_].stack_bottom, &slots_[from_].stack_size);
    if (back.fctx != nullptr) store_continuation(from_, back.fctx);
#else
    boost::context::fiber back = std::move(slots_[to].context).resume();
    // Resumed: `from_` now names whoever switched to us.
    if constexpr (announce) fiber_switch::finish(fake_stack, &slots_[from_].stack_bottom, &slots_[from_].stack_size);
    if (back) slots_[from_].context = std::move(back);
#endif
  }
#ifdef HEDDLE_FIBER_JUMP
  // A fiber's one member, its fcontext_t (a standard-layout class and its
  // first member are pointer-interconvertible).
  static_assert(sizeof(boost::context::fiber) == sizeof(void*) &&
                std::is_standard_layout_v<boost::context::fiber>);
  static void*& raw_context(boost::context::fiber& f) noexcept { return *reinterpret_cast<void**>(&f); }
  // The continuation of the fiber that switched to us, into its slot, which
  // is empty (it was running); were it not, the move-assignment destroys what
  // it held, as the Boost path does.
  void store_continuation(std::size_t index, void* context) noexcept {
    void*& mine = raw_context(slots_[index].context);
    if (mine == nullptr) [[likely]] {
      mine = context;
      return;
    }
    boost::context::fiber f;
    raw_context(f) = context;
    slots_[index].context = std::move(f);
  }
#endif
  // The switch when the hook or own_thread_state is set (the fork server's
  // child), or under AddressSanitizer, out of the in-process path.
  void switch_unusually(std::size_t from, std::size_t to);
  void switch_in_fork_child(std::size_t from, std::size_t to);
  // An operation starts on a fiber: a new thread's errno and exception state
  // (and thread-local storage).
  void fresh_thread_state() noexcept;
  // The thread-local storage blocks: live -> the slot's copy, and back.
  void save_thread_storage(std::size_t index);
  void restore_thread_storage(std::size_t index) noexcept;

  // 64 bytes: switch_now() indexes slots by a shift, not a multiplication.
  struct alignas(64) slot {
    // Empty while running or not yet created. After its operation finished,
    // the slot's fiber is parked here until the iteration ends.
    boost::context::fiber context;
    bool created = false;
    // The slot's stack, for AddressSanitizer's fiber annotations: the pooled
    // stack of an operation, the thread's own stack for the scheduler (learnt
    // at the first switch away from it).
    const void* stack_bottom = nullptr;
    std::size_t stack_size = 0;
    // The operation's thread-local storage while it does not run (the
    // blocks of keep_thread_storage_per_operation, one after the other).
    std::vector<std::byte> thread_storage;
  };
  // A fiber whose operation finished in an earlier iteration, parked between
  // operations: creating an operation resumes one of these, with its stack,
  // instead of making a new fiber.
  struct idle_fiber {
    boost::context::fiber context;
    const void* stack_bottom = nullptr;
    std::size_t stack_size = 0;
  };
  // The slot table of the last fiber backend on this thread, kept for the
  // next as the engine keeps its operation table (engine.cpp).
  static std::vector<slot>& spare_slots();
  void create(std::size_t index);
  void make_fiber(std::size_t index);
  slot& at(std::size_t index);

  stack_pool& pool_;  // this thread's, shared with later runs
  std::vector<slot> slots_;
  // Stacks of finished operations kept out of the pool until the iteration
  // ends (while a race detector listens; fiber_backend.cpp).
  std::vector<boost::context::stack_context> retired_;
  std::vector<idle_fiber> idle_;
  // The slots create() gave a fiber in this iteration: where fibers park.
  std::vector<std::uint32_t> origins_;
  // The slot a parked fiber serves when it is resumed (create() sets it).
  std::size_t assigned_ = 0;
  operation_main main_ = nullptr;
  void* engine_ = nullptr;
  // The slot that switched away last: whoever is resumed stores the
  // continuation it receives into this slot.
  std::size_t from_ = 0;
  bool own_thread_state_ = false;
  bool in_fork_child_ = false;  // own_thread_state_ or a hook
  // Switches are announced to AddressSanitizer (fiber_switch::announced()),
  // and then a fiber ends with its operation (make_fiber).
  const bool announced_ = fiber_switch::announced();
  bool unusual_switch_ = announced_;  // in_fork_child_ or announced_
  std::vector<thread_storage_block> storage_;
  std::size_t storage_bytes_ = 0;  // the blocks' sizes summed
  bool started_any_ = false;       // an operation has started: the next gets fresh storage
};

}  // namespace heddle::detail
