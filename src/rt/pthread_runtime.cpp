// The shared pieces of the pthread surface (see pthread_runtime.hpp): virtual
// deadlines from the program's absolute times, the self-deadlock report, and
// how messages name a thread.
#include "rt/pthread_runtime.hpp"

#include <link.h>

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

// libheddle-rt's own code: [runtime_begin, runtime_end), the executable
// segment that holds this function's, found once (heap_hooks.cpp asks at load).
namespace {
std::uintptr_t runtime_begin = 0;
std::uintptr_t runtime_end = 0;

int find_runtime(dl_phdr_info* info, std::size_t, void*) {
  const auto here = reinterpret_cast<std::uintptr_t>(&find_runtime);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
    const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (here - begin < segment.p_memsz) {
      runtime_begin = begin;
      runtime_end = begin + segment.p_memsz;
      return 1;
    }
  }
  return 0;
}
}  // namespace

bool runtime_code(std::uintptr_t pc) {
  if (runtime_end == 0) ::dl_iterate_phdr(&find_runtime, nullptr);
  return runtime_code_found(pc);
}

bool runtime_code_found(std::uintptr_t pc) noexcept {
  return runtime_end != 0 && pc - runtime_begin < runtime_end - runtime_begin;
}

}  // namespace heddle::rt
