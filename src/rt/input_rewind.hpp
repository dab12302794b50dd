// The program's standard input, the same in every iteration. Every child of
// the fork server shares the server's open file description of stdin, so
// without this the first iteration would read the input to its end and every
// later one (and every replay a repeat runs) would find it empty: a program
// that reads stdin would be judged on no input from its second iteration on.
//
// Contract: constructed in the server before its first child. A regular file
// (or a block device) is read by every child from the offset stdin had then.
// A pipe or a socket is read to its end once, into a memfd that becomes
// stdin; the server says so on stderr if the pipe stays open for a second
// without ending (it waits for its writer to close it). A terminal and other
// character devices (/dev/null) are left as they are: each iteration reads on
// where the last one stopped, as the program would on a second run.
#pragma once

#include <sys/types.h>

namespace heddle::rt {

class input_rewind {
 public:
  input_rewind();
  input_rewind(const input_rewind&) = delete;
  input_rewind& operator=(const input_rewind&) = delete;

  // The server, before each child: stdin back where the first child started.
  void rewind() const noexcept;

 private:
  off_t start_ = -1;  // -1: stdin is not rewound
};

}  // namespace heddle::rt
