// The OS-thread backend (DESIGN.md section 6): every operation runs on a real
// OS thread taken from a pool that is reused across iterations and across runs
// in a process. Exactly one of them runs at a time: control moves by a hand-off
// through a per-thread futex word (the running thread wakes the next one and
// sleeps on its own word), so thread_local, errno and the C library behave as
// in production, and an operation may make a real blocking call without
// stopping the others' bookkeeping.
//
// While an iteration runs, the scheduler thread and every operation thread are
// pinned to the CPU the scheduler was on when the iteration began (a hand-off
// between threads on one CPU costs about 2 us, across CPUs about 26 us); the
// scheduler's own affinity is restored at the end of the iteration.
//
// Contract with the engine: the engine keeps its running operation in the
// scheduler thread's control block (heddle/model.hpp); a resumed thread copies
// that block into its own before any model code runs, so models read the same
// answers on every thread. Real threads are created with HEDDLE_REAL, so the
// pthread interposer of libheddle-rt never sees heddle's own threads. Stacks
// come from a stack_pool (a guard page each, known to the crash handler) and
// every pool thread has an alternate signal stack in the same mapping, so an
// overflow is reported as on fibers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <sched.h>

#include "engine/backend.hpp"
#include "heddle/model.hpp"

namespace heddle::detail {

class thread_backend final : public backend {
 public:
  // `stack_size`: usable stack of each operation thread (at least this much;
  // a pooled thread with a larger stack may serve). `pin`: pin the
  // iteration's threads to one CPU (off only to measure what pinning buys).
  explicit thread_backend(std::size_t stack_size, bool pin = true);
  ~thread_backend() override;
  thread_backend(const thread_backend&) = delete;
  thread_backend& operator=(const thread_backend&) = delete;

  void begin_iteration(operation_main main, void* engine) override;
  void switch_to(std::size_t from, std::size_t to) override;
  void abandon(std::size_t slot) override;
  void end_iteration() override;
  std::string_view name() const override { return "threads"; }


  // From the next iteration on, the thread that runs the iteration (the
  // scheduler) runs the first operation itself instead of waking a pool
  // thread for it, and is never the scheduler again: a switch back to slot 0
  // calls the on_scheduler_resumed hook on the thread that switches, and the
  // hook must end the process (engine::run does not return). The fork
  // server's child: its initial thread runs the program's main, one thread
  // fewer to create per iteration, and main keeps the thread, stack and
  // thread_local variables it has in production.
  void run_first_operation_here() noexcept { first_here_ = true; }

  // Maps the memory of `workers` operation threads (stack, guard page,
  // alternate signal stack) now, for threads any backend of this process or
  // of a child forked from it starts later: the fork server's children then
  // start their threads without mapping anything.
  static void reserve_memory(std::size_t workers, std::size_t stack_size);

  struct worker;         // a pool thread (thread_backend.cpp)
  struct worker_memory;  // its stacks

 private:
  std::atomic<std::uint32_t>& word_of(std::size_t slot);
  // The word of `slot`, giving it a pool thread first if it has none yet.
  std::atomic<std::uint32_t>& word_to_resume(std::size_t slot);
  worker& assign(std::size_t slot);
  static std::unique_ptr<worker_memory> take_memory(std::size_t stack_size);
  void adopt_control() const noexcept;
  // Wakes `slot`'s thread, or ends the iteration through the hook when slot
  // 0 has no thread waiting (run_first_operation_here).
  void resume(std::size_t slot);
  [[noreturn]] void run_here(std::size_t slot);

  std::size_t stack_size_;
  bool pin_;
  operation_main main_ = nullptr;
  void* engine_ = nullptr;
  const control_block* scheduler_control_ = nullptr;  // the engine's running operation lives here
  std::atomic<std::uint32_t>* scheduler_word_ = nullptr;
  int cpu_ = -1;  // the CPU of this iteration, -1 when not pinning
  cpu_set_t scheduler_mask_{};  // the scheduler's affinity before the iteration
  bool restore_mask_ = false;
  // Invariant: slots_[i] is the worker running operation i in this iteration
  // (null for slot 0 and for slots not yet started). Only the running thread
  // touches these vectors.
  std::vector<worker*> slots_;
  std::vector<worker*> idle_;  // this backend's parked workers, ready for a slot
  bool first_here_ = false;

  friend void run_worker(worker& w);
};

}  // namespace heddle::detail
