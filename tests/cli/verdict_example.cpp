// A test binary whose tests pass, but not as fully as a plain "passed" says:
// double-checked locking whose flag is a relaxed atomic (a real bug on ARM and
// under the C++ memory model, which heddle does not model yet), and a test
// whose iterations run longer than a small --max-steps. The CLI tests check
// that the verdicts name what was not checked.
#include <heddle/heddle.hpp>
#include <heddle/test.hpp>

namespace {

struct lazy_value {
  heddle::atomic<bool> ready{false};
  heddle::mutex m;
  int value = 0;
  int get() {
    if (!ready.load(std::memory_order_relaxed)) {
      heddle::lock_guard lock(m);
      if (!ready.load(std::memory_order_relaxed)) {
        value = 42;
        ready.store(true, std::memory_order_relaxed);
      }
    }
    return value;
  }
};

}  // namespace

HEDDLE_TEST(verdict, relaxed_double_checked_locking) {
  lazy_value lazy;
  int seen = 0;
  heddle::thread t([&] { seen = lazy.get(); });
  HEDDLE_ASSERT(lazy.get() == 42);
  t.join();
  HEDDLE_ASSERT(seen == 42);
}

HEDDLE_TEST(verdict, seq_cst_double_checked_locking) {
  heddle::atomic<bool> ready{false};
  heddle::mutex m;
  int value = 0;
  auto get = [&] {
    if (!ready.load()) {
      heddle::lock_guard lock(m);
      if (!ready.load()) {
        value = 42;
        ready.store(true);
      }
    }
    return value;
  };
  heddle::thread t([&] { HEDDLE_ASSERT(get() == 42); });
  HEDDLE_ASSERT(get() == 42);
  t.join();
}

// Two threads take turns on a mutex 200 times each: about 800 decisions.
HEDDLE_TEST(verdict, long_running) {
  heddle::mutex m;
  int count = 0;
  auto work = [&] {
    for (int i = 0; i < 200; ++i) {
      heddle::lock_guard lock(m);
      ++count;
    }
  };
  heddle::thread t(work);
  work();
  t.join();
  HEDDLE_ASSERT(count == 400);
}
