// The fiber backend: every operation of an iteration is a Boost.Context fiber
// on the calling OS thread. Switches go directly from one operation to the
// next (one context switch per decision), not through the scheduler.
//
// Limits users must know: thread_local is per OS thread, so it is shared by all
// operations; an operation must not make a real blocking call (it would block
// every operation).
#pragma once

#include <cstddef>
#include <vector>

#include <boost/context/fiber.hpp>

#include "backends/stack_pool.hpp"
#include "engine/backend.hpp"

namespace heddle::detail {

class fiber_backend final : public backend {
 public:
  explicit fiber_backend(std::size_t stack_size);
  ~fiber_backend() override;

  void begin_iteration(operation_main main, void* engine) override;
  void switch_to(std::size_t from, std::size_t to) override;
  void abandon(std::size_t slot) override;
  void end_iteration() override;
  std::string_view name() const override { return "fibers"; }

 private:
  struct slot {
    boost::context::fiber context;  // empty while running, finished or not yet created
    bool created = false;
    // The slot's stack, for AddressSanitizer's fiber annotations: the pooled
    // stack of an operation, the thread's own stack for the scheduler (learnt
    // at the first switch away from it).
    const void* stack_bottom = nullptr;
    std::size_t stack_size = 0;
  };
  void create(std::size_t index);
  slot& at(std::size_t index);

  stack_pool& pool_;  // this thread's, shared with later runs
  std::vector<slot> slots_;
  operation_main main_ = nullptr;
  void* engine_ = nullptr;
  // The slot that switched away last: whoever is resumed stores the
  // continuation it receives into this slot.
  std::size_t from_ = 0;
};

}  // namespace heddle::detail
