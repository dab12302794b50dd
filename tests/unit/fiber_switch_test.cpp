// The fiber backend's switch (backends/fiber_backend.hpp): each operation keeps
// its own floating-point control state (rounding mode in the x87 control word
// and in MXCSR), as threads do, although the switch loads it only where it
// differs from the state left behind.
#include <gtest/gtest.h>

#include <cfenv>
#include <cstdint>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "heddle/heddle.hpp"

namespace {

heddle::options quiet(const char* strategy, std::uint64_t iterations) {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = strategy;
  o.print_report = false;
  o.out.clear();
  o.backend = "fibers";
  return o;
}

#if defined(__x86_64__)
// MXCSR's rounding field (bits 13-14), as _MM_SET_ROUNDING_MODE sets it.
unsigned sse_rounding() { return _MM_GET_ROUNDING_MODE(); }
#endif

// Two operations set different rounding modes (the x87 one through fesetround,
// which sets both, then MXCSR's alone), then yield many times: after every
// switch each must still see its own.
void rounding_modes_per_operation() {
  auto worker = [](int round, [[maybe_unused]] unsigned sse) {
    std::fesetround(round);
#if defined(__x86_64__)
    _MM_SET_ROUNDING_MODE(sse);
#endif
    for (int i = 0; i < 20; ++i) {
      heddle::this_thread::yield();
      HEDDLE_ASSERT(std::fegetround() == round);
#if defined(__x86_64__)
      HEDDLE_ASSERT(sse_rounding() == sse);
#endif
    }
    std::fesetround(FE_TONEAREST);
  };
#if defined(__x86_64__)
  heddle::thread a{[&] { worker(FE_UPWARD, _MM_ROUND_DOWN); }};
  heddle::thread b{[&] { worker(FE_DOWNWARD, _MM_ROUND_TOWARD_ZERO); }};
#else
  heddle::thread a{[&] { worker(FE_UPWARD, 0); }};
  heddle::thread b{[&] { worker(FE_DOWNWARD, 0); }};
#endif
  // The main operation keeps the default throughout.
  for (int i = 0; i < 20; ++i) {
    heddle::this_thread::yield();
    HEDDLE_ASSERT(std::fegetround() == FE_TONEAREST);
  }
  a.join();
  b.join();
  HEDDLE_ASSERT(std::fegetround() == FE_TONEAREST);
}

TEST(fiber_switch, each_operation_keeps_its_own_rounding_mode) {
  const heddle::result r = heddle::explore(quiet("random", 50), rounding_modes_per_operation);
  EXPECT_FALSE(r.bug) << (r.bug ? r.bug->message : "");
  EXPECT_EQ(r.stats.iterations, 50u);
}

}  // namespace
