// The text bug report (DESIGN.md section 12): kind, message, operation and
// source location, the interleaving as one column per operation, the one-line
// trace, the trace file, and the command that replays it.
#pragma once

#include <string>

#include "engine/engine.hpp"
#include "heddle/explore.hpp"

namespace heddle::detail {

struct report_context {
  std::string test;
  std::string program;
  std::string trace_file;
  std::uint64_t iteration = 0;
  std::uint64_t iterations_run = 0;
  bool replaying = false;
};

std::string format_report(const bug& b, const trace& t, const iteration_outcome& outcome,
                          const report_context& ctx);
// How one step reads in a report: "acquire mutex #2 (bank.cpp:14)".
std::string describe_step(const trace_step& s, const iteration_outcome& outcome, std::size_t index);
std::string replay_command(const report_context& ctx);

}  // namespace heddle::detail
