// What a program under control reads that heddle does not control and a
// replay cannot reproduce: its process and thread ids (new in every run) and
// the kernel's random numbers. The runtime notes each kind the first time a
// controlled operation reads it, in a word the fork server shares with its
// child, so that a replay or a --check-determinism run that diverges can name
// the cause it saw. See uncontrolled_inputs.cpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace heddle::rt {

enum uncontrolled_input : std::uint32_t {
  input_process_id = 1,  // getpid, getppid
  input_thread_id = 2,   // gettid
  input_kernel_random = 4,  // getrandom, getentropy
};

// Where the notes go (the fork channel); null: nowhere.
void note_uncontrolled_inputs_in(std::atomic<std::uint32_t>* word) noexcept;

// "it read its process id (getpid) and the kernel's random numbers
// (getrandom)"; empty for none.
std::string describe_uncontrolled_inputs(std::uint32_t inputs);

}  // namespace heddle::rt
