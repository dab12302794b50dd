// Per-iteration capture of the program's stdout and stderr: one memfd that
// each child writes both streams to (in the order it wrote them), emptied
// before every iteration, so the report can show how the failing iteration
// ended. Unbuffered writes (stderr, assert's message) are all there; what a
// crashing program left in stdio's buffer is lost, as it would be in a pipe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heddle::rt {

class output_capture {
 public:
  output_capture();
  ~output_capture();
  output_capture(const output_capture&) = delete;
  output_capture& operator=(const output_capture&) = delete;

  void clear();           // parent, before an iteration
  void redirect_here();   // child: stdout and stderr into the capture
  std::string text() const;
  // The last line containing `part`, or the last non-empty line if none does.
  std::string last_line_with(std::string_view part) const;
  // "  output of the iteration (last N lines of stdout and stderr):" and the
  // lines, indented; empty when the program wrote nothing.
  std::string tail_section(std::size_t lines) const;
  // The memfd both streams go to (heddle run --check reads it from the start).
  int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
};

}  // namespace heddle::rt
