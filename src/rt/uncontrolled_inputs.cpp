// See uncontrolled_inputs.hpp. The interposers only take note and call the C
// library: the values stay real (a fake process id would break kill(getpid())
// and /proc/<pid>). heddle's own code reads its ids with the raw system call,
// so that only the program's reads are noted.
#include "rt/uncontrolled_inputs.hpp"

#include <sys/random.h>
#include <sys/types.h>
#include <unistd.h>

#include "backends/real.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {
namespace {

std::atomic<std::uint32_t>* notes = nullptr;

void note(uncontrolled_input input) noexcept {
  if (notes != nullptr && controlled()) notes->fetch_or(input, std::memory_order_relaxed);
}

}  // namespace

void note_uncontrolled_inputs_in(std::atomic<std::uint32_t>* word) noexcept { notes = word; }

std::string describe_uncontrolled_inputs(std::uint32_t inputs) {
  std::string text;
  const auto add = [&](uncontrolled_input input, const char* what) {
    if ((inputs & input) == 0) return;
    if (!text.empty()) text += " and ";
    text += what;
  };
  add(input_process_id, "its process id (getpid)");
  add(input_thread_id, "its threads' ids (gettid)");
  add(input_kernel_random, "the kernel's random numbers (getrandom)");
  return text.empty() ? text : "it read " + text + ", which differ in every run";
}

}  // namespace heddle::rt

using heddle::rt::uncontrolled_input;

HEDDLE_RT_DEFINE(pid_t, getpid, ()) {
  heddle::rt::note(heddle::rt::input_process_id);
  return HEDDLE_REAL(getpid)();
}

HEDDLE_RT_DEFINE(pid_t, getppid, ()) {
  heddle::rt::note(heddle::rt::input_process_id);
  return HEDDLE_REAL(getppid)();
}

HEDDLE_RT_DEFINE(pid_t, gettid, ()) {
  heddle::rt::note(heddle::rt::input_thread_id);
  return HEDDLE_REAL(gettid)();
}

HEDDLE_RT_DEFINE(ssize_t, getrandom, (void* buffer, size_t length, unsigned flags)) {
  heddle::rt::note(heddle::rt::input_kernel_random);
  return HEDDLE_REAL(getrandom)(buffer, length, flags);
}

HEDDLE_RT_DEFINE(int, getentropy, (void* buffer, size_t length)) {
  heddle::rt::note(heddle::rt::input_kernel_random);
  return HEDDLE_REAL(getentropy)(buffer, length);
}
