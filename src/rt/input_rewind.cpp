// See input_rewind.hpp.
#include "rt/input_rewind.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace heddle::rt {

namespace {

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Copies the pipe on stdin into `to` until its writer closes it.
bool copy_to_end(int to) {
  static char buffer[65536];  // the server's: no allocation on the program's heap
  bool told = false;
  while (true) {
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const int ready = ::poll(&p, 1, told ? -1 : 1000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return false;
    if (ready == 0) {
      std::fprintf(stderr,
                   "heddle: waiting for standard input to end: a pipe is read to its end once, and every iteration "
                   "reads it from the start (redirect it from a file, or from /dev/null if the program does not "
                   "read it)\n");
      told = true;
      continue;
    }
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    if (!write_all(to, buffer, static_cast<std::size_t>(n))) return false;
  }
}

}  // namespace

input_rewind::input_rewind() {
  struct stat st{};
  if (::fstat(STDIN_FILENO, &st) != 0) return;
  if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
    start_ = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    return;
  }
  if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) return;
  const int copy = ::memfd_create("heddle-stdin", MFD_CLOEXEC);
  if (copy < 0) return;
  if (copy_to_end(copy) && ::dup2(copy, STDIN_FILENO) == STDIN_FILENO) start_ = 0;
  ::close(copy);
}

void input_rewind::rewind() const noexcept {
  if (start_ >= 0) ::lseek(STDIN_FILENO, start_, SEEK_SET);
}

}  // namespace heddle::rt
