// Options from outside the code: HEDDLE_* environment variables and the
// --heddle_* flags of a test binary. One table serves both, so every option has
// the same name everywhere: --heddle_max_steps, HEDDLE_MAX_STEPS, --max-steps.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "heddle/options.hpp"

namespace heddle::detail {

// Sets one option by its name ("iterations", "max_steps", ...); throws
// heddle::usage_error for an unknown name or a bad value.
void set_option(options& o, std::string_view name, std::string_view value, std::string_view source);
bool is_option_name(std::string_view name);
// Did a HEDDLE_* variable, an entry of HEDDLE_OPTIONS or a --heddle_* flag
// set option `name`?
bool option_given(std::string_view name);

// Flag values a test binary's main() parsed, applied after the environment.
std::map<std::string, std::string>& flag_overrides();

// code-given options, then HEDDLE_* variables, then flags.
options with_overrides(options o);

// True when code, HEDDLE_BACKEND or --heddle_backend chose a backend (a replay
// otherwise runs on the trace's).
bool backend_requested(const options& given);

// "10", "10s", "500ms", "2m", "1h" -> milliseconds; throws usage_error.
std::chrono::milliseconds parse_duration(std::string_view text, std::string_view what);
std::uint64_t parse_unsigned(std::string_view text, std::string_view what);
// "fibers" or "threads"; throws usage_error naming `what`.
std::string parse_backend(std::string_view text, std::string_view what);

}  // namespace heddle::detail
