// heddle::lock and heddle::try_lock over type-erased lockables (see lock.hpp).
// Under control each try_lock is a scheduling point, so the retry loop's
// interleavings are explored like any other; the loop ends because an
// operation that fails gives every lock back before blocking on the next one.
#include "heddle/lock.hpp"

namespace heddle::detail {

void lock_all(const erased_lockable* all, std::size_t size, std::source_location loc) {
  std::size_t first = 0;
  for (;;) {
    all[first].lock(all[first].object, loc);
    unlock_on_exit taken(all, size, first, loc);
    taken.count = 1;
    std::size_t k = 1;
    for (; k < size; ++k) {
      const erased_lockable& next = all[(first + k) % size];
      if (!next.try_lock(next.object, loc)) break;
      ++taken.count;
    }
    if (k == size) {
      taken.count = 0;  // all held: keep them
      return;
    }
    first = (first + k) % size;  // start again from the one that was busy
  }
}

int try_lock_all(const erased_lockable* all, std::size_t size, std::source_location loc) {
  unlock_on_exit taken(all, size, 0, loc);
  for (std::size_t i = 0; i < size; ++i) {
    if (!all[i].try_lock(all[i].object, loc)) return static_cast<int>(i);
    ++taken.count;
  }
  taken.count = 0;
  return -1;
}

}  // namespace heddle::detail
