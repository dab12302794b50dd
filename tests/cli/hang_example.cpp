// A test binary whose bug is a hang: in one interleaving the reader asks the
// pipe for a byte nobody writes and blocks in read() for good (a blocking call
// heddle does not model runs as one step, so the whole test process waits).
// The CLI tests use it to check that a worker's watchdog (--iteration-timeout)
// reports the hang with a trace, and that `heddle replay` of that trace stops
// at the run's time limit and reports the hang again instead of hanging.
#include <unistd.h>

#include <heddle/heddle.hpp>
#include <heddle/test.hpp>

namespace {

void read_after_the_flag(bool write_both_first) {
  int fds[2];
  if (::pipe(fds) != 0 || ::write(fds[1], "x", 1) != 1) heddle::assertion_failed("pipe");
  if (write_both_first && ::write(fds[1], "y", 1) != 1) heddle::assertion_failed("write");
  heddle::mutex m;
  bool more = false;
  heddle::thread reader([&] {
    m.lock();
    const int reads = more ? 2 : 1;
    m.unlock();
    char byte;
    for (int i = 0; i < reads; ++i) (void)::read(fds[0], &byte, 1);
  });
  m.lock();
  more = true;
  m.unlock();
  reader.join();
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace

HEDDLE_TEST(hang, read_that_nobody_writes) { read_after_the_flag(false); }

// The fixed twin: both bytes are in the pipe before the reader starts.
HEDDLE_TEST(hang, fixed_both_bytes_written_first) { read_after_the_flag(true); }
