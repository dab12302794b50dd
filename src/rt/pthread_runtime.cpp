// The shared pieces of the pthread surface (see pthread_runtime.hpp): virtual
// deadlines from the program's absolute times, the self-deadlock report, and
// how messages name a thread.
#include "rt/pthread_runtime.hpp"

#include <cstdlib>

#include "backends/real.hpp"
#include "engine/engine.hpp"
#include "rt/posix_clock.hpp"

namespace heddle::rt {

namespace {
constexpr std::int64_t nanos_per_second = 1'000'000'000;

std::int64_t nanos(const timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * nanos_per_second + static_cast<std::int64_t>(t.tv_nsec);
}
}  // namespace

namespace {
// Never destroyed: a table destroyed at exit leaves it in any order.
std::vector<side_table_base*>& side_tables() {
  static auto* const tables = new std::vector<side_table_base*>;  // NOLINT: lives for the process
  return *tables;
}
}  // namespace

side_table_base::side_table_base() { side_tables().push_back(this); }

side_table_base::~side_table_base() { std::erase(side_tables(), this); }

void forget_objects(std::uintptr_t address, std::uintptr_t size) {
  for (side_table_base* table : side_tables()) table->forget(address, size);
}

bool invalid(const timespec& t) { return t.tv_nsec < 0 || t.tv_nsec >= nanos_per_second; }

virtual_time deadline_after(const timespec& d) {
  const std::int64_t ns = nanos(d);
  return ns <= 0 ? now() : now() + ns;
}

virtual_time deadline_at(clockid_t clock, const timespec& abstime) {
  // The program computed abstime from its clock, which reads virtual time
  // under control (posix_clock.cpp); only the distance matters, and it is
  // spent on virtual time. A clock that is not virtual is read for real.
  std::int64_t reading = 0;
  if (!virtual_reading(clock, reading)) {
    timespec real_now{};
    HEDDLE_REAL(clock_gettime)(clock, &real_now);
    reading = nanos(real_now);
  }
  const std::int64_t ns = nanos(abstime) - reading;
  return ns <= 0 ? now() : now() + ns;
}

void report(bug_kind kind, std::string message) {
  // No source location: this one would name the runtime, not the program's
  // call (the message says which call it was).
  if (detail::engine* e = detail::engine::current()) e->report(kind, std::move(message), std::source_location{}, false);
  scheduling_point(point_kind::user, std::source_location{});  // the iteration ends here
  std::abort();                        // never reached under control
}

std::string describe(operation_id op) {
  detail::engine* e = detail::engine::current();
  return e != nullptr ? e->describe_operation(op) : "operation " + std::to_string(op);
}

}  // namespace heddle::rt
