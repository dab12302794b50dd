#include "runner/step_log.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <csignal>

#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace heddle::detail {

shared_region::shared_region(std::size_t bytes) : size_(bytes) {
  data_ = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    throw std::runtime_error(fmt::format("cannot map {} bytes of shared memory: {}", bytes, std::strerror(errno)));
  }
}

shared_region::~shared_region() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

int wait_for_child(int child, std::chrono::steady_clock::time_point deadline) {
  // glibc 2.36 declares pidfd_open without C linkage for C++: the syscall itself.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  while (pidfd >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{pidfd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) ::kill(child, SIGKILL);
    break;
  }
  if (pidfd >= 0) ::close(pidfd);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::size_t step_log::bytes_for(std::uint64_t capacity) {
  return sizeof(header) + capacity * sizeof(trace_step);
}

step_log::step_log(void* memory, std::uint64_t capacity)
    // Fresh anonymous pages are zero, a valid empty header: attaching never
    // resets a log another process is writing.
    : header_(static_cast<header*>(memory)), steps_(reinterpret_cast<trace_step*>(static_cast<char*>(memory) + sizeof(header))),
      capacity_(capacity) {}

std::vector<trace_step> step_log::snapshot() const {
  const std::uint64_t n = std::min(size(), capacity_);
  return std::vector<trace_step>(steps_, steps_ + n);
}

}  // namespace heddle::detail
