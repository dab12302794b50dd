// heddle::latch (DESIGN.md section 8): std::latch under control. count_down
// is a scheduling point (signal), wait one (wait) that blocks until the
// counter reaches zero; try_wait is a scheduling point (read). Outside an
// iteration it forwards to std::latch.
//
// Misuse is a bug: count_down(n) with n < 0 or n > the counter (std's
// precondition), destroying a latch while operations wait on it.
#pragma once

#include <cstddef>
#include <latch>
#include <source_location>

#include "heddle/model.hpp"

namespace heddle {

class latch {
 public:
  static constexpr std::ptrdiff_t max() noexcept { return std::latch::max(); }

  constexpr explicit latch(std::ptrdiff_t expected) : initial_(expected), counter_(expected), real_(expected) {}
  latch(const latch&) = delete;
  latch& operator=(const latch&) = delete;
  ~latch();

  void count_down(std::ptrdiff_t n = 1, std::source_location loc = std::source_location::current());
  bool try_wait(std::source_location loc = std::source_location::current()) const;
  void wait(std::source_location loc = std::source_location::current()) const;
  void arrive_and_wait(std::ptrdiff_t n = 1, std::source_location loc = std::source_location::current());

 private:
  void reset_if_stale() const noexcept;

  resource resource_{object_kind::latch};
  std::ptrdiff_t initial_;
  mutable std::ptrdiff_t counter_;  // controlled state; back to initial_ when the resource is stale
  std::latch real_;
};

}  // namespace heddle
