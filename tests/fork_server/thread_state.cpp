// Per-thread state a program relies on, under `heddle run` on either backend
// (thread_state_test.sh). No heddle header. Two threads each make a system
// call fail with an errno of their own and throw an exception of their own,
// then pass through scheduling points (a std::mutex) while errno holds their
// value and while they are inside their catch block; afterwards errno must
// still be theirs, and `throw;` must rethrow their own exception. On the OS
// thread backend this holds by construction; on fibers it holds because each
// operation saves and restores errno and the C++ exception state.
//
// The program also has a thread_local variable, which its threads share on
// fibers: heddle warns about it once.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

std::mutex m;
thread_local int calls = 0;

void step() {
  const std::lock_guard<std::mutex> hold(m);
  ++calls;
}

void check(bool ok, const char* what, const std::string& who) {
  if (ok) return;
  std::fprintf(stderr, "%s: %s\n", who.c_str(), what);
  std::abort();
}

void body(const std::string& who, bool bad_descriptor) {
  errno = 0;
  // EBADF from close(-1), or ENOENT from opening a path that does not exist.
  if (bad_descriptor) (void)::close(-1);
  else (void)::open("/nonexistent/heddle-thread-state", O_RDONLY);
  const int mine = errno;
  check(mine == (bad_descriptor ? EBADF : ENOENT), "the failing call set another errno", who);
  for (int i = 0; i < 3; ++i) step();
  check(errno == mine, "errno changed across scheduling points", who);
  try {
    throw std::runtime_error(who);
  } catch (const std::exception&) {
    for (int i = 0; i < 3; ++i) step();
    try {
      throw;
    } catch (const std::exception& again) {
      check(again.what() == who, "throw; rethrew another thread's exception", who);
    }
  }
}

}  // namespace

int main() {
  std::thread a(body, "a", true);
  std::thread b(body, "b", false);
  a.join();
  b.join();
  return 0;
}
