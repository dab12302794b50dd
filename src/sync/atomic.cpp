// The non-template part of heddle's atomics: the thread fence (a scheduling
// point, and under rc11 the fence rules of engine/weak_memory.cpp).
#include "heddle/atomic.hpp"

namespace heddle {

void atomic_thread_fence(std::memory_order order, std::source_location loc) {
  if (order != std::memory_order_seq_cst && in_control()) detail::note_weak_order();
  scheduling_point(point_kind::fence, loc);
  if (detail::control.weak_memory && detail::control.running != 0) detail::wm_fence(order);
  std::atomic_thread_fence(order);
}

}  // namespace heddle
