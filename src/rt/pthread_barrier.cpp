// Barriers under control, on heddle's barrier model (detail::barrier_state):
// an arrival is a scheduling point, the arrival that completes a round
// releases the waiters, and exactly that one gets
// PTHREAD_BARRIER_SERIAL_THREAD. A barrier set up outside control (before
// main) takes its count from the object, where glibc's pthread_barrier_init
// keeps it.
//
// Misuse is a bug of kind API misuse: waiting on a barrier that was never
// initialized, destroying one threads wait on.
#include <cstring>
#include <string>

#include "backends/real.hpp"
#include "heddle/barrier.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

struct barrier_model {
  explicit barrier_model(unsigned count) : state(static_cast<std::ptrdiff_t>(count)) {}
  detail::barrier_state state;
};

side_table<barrier_model>& barriers() {
  static side_table<barrier_model> table;
  return table;
}

// glibc's struct pthread_barrier: in, current_round, count, shared, out.
unsigned count_in_object(const pthread_barrier_t* b) {
  unsigned words[3];
  static_assert(sizeof(pthread_barrier_t) >= sizeof words);
  std::memcpy(words, b, sizeof words);
  return words[2];
}

}  // namespace

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, pthread_barrier_init, (pthread_barrier_t * b, const pthread_barrierattr_t* attr, unsigned count)) {
  if (!controlled()) return HEDDLE_REAL(pthread_barrier_init)(b, attr, count);
  const int rc = HEDDLE_REAL(pthread_barrier_init)(b, attr, count);  // validates count
  if (rc == 0) heddle::rt::barriers().emplace(b, count);
  return rc;
}

HEDDLE_RT_DEFINE(int, pthread_barrier_destroy, (pthread_barrier_t * b)) {
  if (!controlled()) return HEDDLE_REAL(pthread_barrier_destroy)(b);
  if (auto* m = heddle::rt::barriers().find(b)) {
    m->state.check_no_waiters();
    heddle::rt::barriers().erase(b);
  }
  return 0;
}

HEDDLE_RT_DEFINE(int, pthread_barrier_wait, (pthread_barrier_t * b)) {
  HEDDLE_CALL_SITE();
  if (!controlled()) return HEDDLE_REAL(pthread_barrier_wait)(b);
  auto* m = heddle::rt::barriers().find(b);
  if (m == nullptr) {
    const unsigned count = heddle::rt::count_in_object(b);
    if (count == 0 && !heddle::unwinding())
      heddle::rt::report_misuse("pthread_barrier_wait on a barrier that was not initialized (pthread_barrier_init)");
    m = &heddle::rt::barriers().emplace(b, count == 0 ? 1 : count);
  }
  bool serial = false;
  const auto loc = std::source_location{};
  const std::uint64_t round = m->state.arrive(1, false, [](void* flag) { *static_cast<bool*>(flag) = true; },
                                              &serial, loc);
  m->state.wait(round, loc);
  return serial ? PTHREAD_BARRIER_SERIAL_THREAD : 0;
}
