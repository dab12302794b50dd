// The non-template part of heddle's atomics: the thread fence.
#include "heddle/atomic.hpp"

namespace heddle {

void atomic_thread_fence(std::memory_order order, std::source_location loc) {
  scheduling_point(point_kind::fence, loc);
  std::atomic_thread_fence(order);
}

}  // namespace heddle
