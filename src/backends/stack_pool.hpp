// Fiber stacks: mmap'd, each with a PROT_NONE guard page below it, pooled so
// that iterations reuse them instead of mapping new ones. The guard pages are
// kept in a fixed table that a signal handler can search without allocating,
// so an overflow is reported as a stack overflow rather than a random crash.
#pragma once

#include <cstddef>
#include <vector>

#include <boost/context/stack_context.hpp>

namespace heddle::detail {

class stack_pool {
 public:
  explicit stack_pool(std::size_t usable_size);
  ~stack_pool();
  stack_pool(const stack_pool&) = delete;
  stack_pool& operator=(const stack_pool&) = delete;

  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;
  std::size_t usable_size() const noexcept { return usable_; }

  // The pool of this OS thread for stacks of `usable_size` bytes, kept across
  // explore() calls so a suite of many small tests maps its stacks once.
  static stack_pool& for_this_thread(std::size_t usable_size);

  // Async-signal-safe: does `address` fall in the guard page of any pooled stack?
  static bool is_guard_page(const void* address) noexcept;

 private:
  struct mapping {
    char* base;  // the guard page; the usable stack follows
    std::size_t length;
  };
  std::size_t usable_;
  std::size_t page_;
  std::vector<mapping> free_;
  std::vector<mapping> all_;
};

}  // namespace heddle::detail
