// An iteration that never ends on its own: main blocks in read() of a pipe
// that nobody writes, a call the runtime does not model (orphan_test.sh kills
// the fork server meanwhile). (pause() would not do: signals a program sends
// itself are modelled, and a pause with no other thread is a deadlock.)
#include <unistd.h>

int main() {
  int fds[2];
  if (::pipe(fds) != 0) return 1;
  char byte = 0;
  return static_cast<int>(::read(fds[0], &byte, 1));
}
