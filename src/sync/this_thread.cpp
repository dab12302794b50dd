#include "heddle/this_thread.hpp"

namespace heddle::this_thread {

void yield(std::source_location loc) {
  if (in_control()) scheduling_point(point_kind::yield, loc);
  else std::this_thread::yield();
}

}  // namespace heddle::this_thread
