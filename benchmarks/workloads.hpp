// The test bodies the issue measures, shared by the Google Benchmark suite and
// the RSS harness so both measure exactly the same program.
//
//   yield_ping_pong   two operations, each yielding `yields` times: nearly every
//                     decision is a switch between them (figure 1, decisions/s).
//   mutex_increments  two threads, each incrementing an int `increments` times under
//                     heddle::mutex (lock/unlock per increment), then
//                     HEDDLE_ASSERT(counter == 2 * increments) (figure 2, iterations/s).
//   check_then_act    two threads create a lazily created object: both see "not
//                     created" on an atomic and both create, which the final
//                     assertion catches; `fixed` checks and acts in one exchange
//                     (time to first bug, issue 14).
#pragma once

#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"

namespace heddle::bench {

inline void yield_ping_pong(int yields) {
  auto yielder = [yields] {
    for (int i = 0; i < yields; ++i) heddle::this_thread::yield();
  };
  heddle::thread a{yielder};
  heddle::thread b{yielder};
  a.join();
  b.join();
}

inline void mutex_increments(int increments) {
  heddle::mutex m;
  int counter = 0;
  auto worker = [&] {
    for (int i = 0; i < increments; ++i) {
      m.lock();
      ++counter;
      m.unlock();
    }
  };
  heddle::thread a{worker};
  heddle::thread b{worker};
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2 * increments);
}

inline void check_then_act(bool fixed) {
  heddle::atomic<int> created{0};
  heddle::atomic<int> constructions{0};
  auto get = [&] {
    if (fixed) {
      if (created.exchange(1) == 0) constructions.fetch_add(1);
    } else if (created.load() == 0) {
      constructions.fetch_add(1);
      created.store(1);
    }
  };
  heddle::thread a(get), b(get);
  a.join();
  b.join();
  HEDDLE_ASSERT(constructions.load() == 1);
}

// Options for a measured run: quiet, no trace files, otherwise the defaults.
// `max_steps` must leave room for every step of the workload (2 x 10,000 yields
// exceed the default of 20,000), but no more: explore() reserves crash-handler
// buffers in proportion to it, and that cost would be measured too.
inline heddle::options quiet(std::uint64_t iterations, const char* strategy,
                             std::uint64_t max_steps = heddle::options{}.max_steps) {
  return {.iterations = iterations, .strategy = strategy, .max_steps = max_steps, .print_report = false, .out = ""};
}

}  // namespace heddle::bench
