// heddle run --check CMD: a command that judges each iteration by what the
// program wrote. After an iteration that ended without a bug, the fork server
// runs `/bin/sh -c CMD` in the program's working directory with the
// iteration's output (stdout and stderr, in the order written) on its standard
// input; a non-zero status is a bug. Uninstrumented programs (a compressor as
// Debian ships it) have no assertion of their own to fail: this is how a test
// says "decompress it and compare".
#pragma once

#include <optional>
#include <string>

namespace heddle::rt {

class output_capture;

// Runs the check; returns why it failed ("exited with status 1: <its last
// line>"), or nothing when it passed. The command runs outside heddle: the
// runtime is taken out of its LD_PRELOAD and the HEDDLE_* variables out of
// its environment.
std::optional<std::string> failed_output_check(const std::string& command, const output_capture& output);

}  // namespace heddle::rt
