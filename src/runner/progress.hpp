// The progress line a run draws on a terminal: iterations done (of how many),
// iterations per second, bugs, elapsed and remaining time.
//
// Contract: draws only when options::progress is set and stderr is a
// terminal; redraws at most ten times a second, in place ("\r", erase line);
// clear() erases it (call before printing anything else on stderr). When
// stderr is not a terminal, nothing is ever written.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "heddle/options.hpp"

namespace heddle::detail {

class progress_line {
 public:
  // `total`: iterations this run will do at most.
  progress_line(const options& o, std::uint64_t total);
  ~progress_line() { clear(); }
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  void update(std::uint64_t done, std::uint64_t bugs) {
    if (enabled_) draw(done, bugs, false);
  }
  void clear();

 private:
  void draw(std::uint64_t done, std::uint64_t bugs, bool force);
  bool enabled_ = false;
  bool drawn_ = false;
  std::uint64_t total_;
  std::chrono::milliseconds budget_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_{};
};

// "1:05", "12.3s": how the progress line and the summary show a duration.
std::string format_duration(double seconds);

}  // namespace heddle::detail
