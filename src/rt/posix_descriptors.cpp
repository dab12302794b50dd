// Waits on file descriptors under control: poll and ppoll with descriptors,
// select and pselect with sets, epoll_wait and epoll_pwait.
//
// Found on the third-party audit of 2026-11-29: libuv's uv_run waits in
// epoll_wait for its thread pool's workers to write to the loop's eventfd
// (uv_queue_work, uv_async_send); GLib's main loop waits in poll() the same
// way. Passed to the kernel, the wait blocked the OS thread of the only
// operation allowed to run, the workers never got their turn, and every
// iteration ended in a hang report (`operation 1 (main) is blocked in
// epoll_wait()`) for a correct program.
//
// The contract: a wait never blocks in the kernel while another operation of
// the iteration could run and make a descriptor ready. It asks the kernel
// without blocking (a timeout of 0) and returns what is ready, as the call
// would. Otherwise:
// - while another operation is enabled (and not itself in such a wait), the
//   waiter sleeps for zero virtual time (a yield: strategies let the others
//   run first) and asks again;
// - else, while another operation waits with a deadline (a timed wait, whose
//   timeout may then come), the waiter sleeps until the earliest of those
//   deadlines and its own, and asks again;
// - else nothing in the iteration can make a descriptor ready: a finite
//   timeout passes on virtual time (a sleep to it, then the last answer), and
//   an endless wait is for the world outside (a child process, the network):
//   it blocks in the kernel, as it did before, and the watchdog names the call
//   if nothing comes.
// The kernel's answers depend only on what the program's own operations did,
// which heddle orders, so a schedule replays. A signal handler the program
// installed runs at each yield (signal_delivery_point) and the wait goes on,
// as if the call were restarted (a program that wakes its loop from a
// handler writes to a descriptor it watches, which the next question sees).
//
// Happens-before through descriptors, for the race detector (and the rc11
// views): what an operation did before it wrote to a descriptor (write,
// writev, send, sendto, sendmsg) happens before what another does after it
// read from that descriptor (read, readv, recv, recvfrom, recvmsg) or saw it
// ready in poll or select; epoll_wait, whose events need not name their
// descriptors, orders after every write to any descriptor. Without it, a
// value libuv's uv_async_send handed to the loop thread was reported as a
// data race (as ThreadSanitizer, whose interceptors do the same, does not).
// The objects exist only while the race detector or rc11 is on, so other
// runs' object numbers do not change.
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "backends/real.hpp"
#include "engine/engine.hpp"
#include "rt/pthread_runtime.hpp"

namespace heddle::rt {

namespace {

// Operations now in a descriptor wait: they do not count as others that
// could make a descriptor ready (two loops waiting for each other block, as
// they would outside heddle). Every iteration is a process of its own.
std::vector<bool> in_descriptor_wait;

enum class others { can_run, have_deadline, none };

// What the other operations of the iteration can do; `earliest` is the
// earliest deadline of those blocked with one.
others look_at_others(std::optional<virtual_time>& earliest) {
  const detail::engine* e = detail::engine::current();
  const operation_id me = e->running();
  others found = others::none;
  for (operation_id id = 1; id < e->operation_count(); ++id) {
    if (id == me) continue;
    const detail::op_status status = e->status_of(id);
    if (status == detail::op_status::enabled) {
      if (id < in_descriptor_wait.size() && in_descriptor_wait[id]) continue;
      return others::can_run;
    }
    if (status != detail::op_status::blocked) continue;
    const std::optional<virtual_time>& d = e->operation_at(id).deadline;
    if (!d) continue;
    found = others::have_deadline;
    if (!earliest || *d < *earliest) earliest = *d;
  }
  return found;
}

// One object per file a descriptor designates (both ends of a pipe, an
// eventfd, a file: by device and inode), and one for every descriptor, which
// sockets use (the two ends of a socket pair are two inodes) and epoll_wait
// acquires. Each write releases its file's and the common one.
struct descriptor_objects {
  std::uint32_t epoch = 0;
  std::map<std::pair<dev_t, ino_t>, std::unique_ptr<resource>> files;
  std::unique_ptr<resource> any;

  const resource& of_any() {
    sync();
    if (!any) any = std::make_unique<resource>(object_kind::user);
    return *any;
  }
  // Null for a socket, or a descriptor fstat did not know (st_mode 0).
  const resource* of_file(const struct stat& st) {
    if (st.st_mode == 0 || S_ISSOCK(st.st_mode)) return nullptr;
    sync();
    auto& slot = files[{st.st_dev, st.st_ino}];
    if (!slot) slot = std::make_unique<resource>(object_kind::user);
    return slot.get();
  }
  void sync() {
    if (epoch == detail::control.epoch) return;
    files.clear();
    any.reset();
    epoch = detail::control.epoch;
  }
};

descriptor_objects& descriptors() {
  static descriptor_objects& table = *new descriptor_objects;
  return table;
}

bool ordering() noexcept { return detail::hb != nullptr || detail::control.weak_memory; }


}  // namespace

// One object for the state of every descriptor, on which dpor sees who
// waits and who changes what a wait sees: each try of a wait reads it, and
// each call that moves data through a descriptor writes it (a scheduling
// point before the call). Without it, dpor took a wait for independent of
// the write it waits for: it explored too few orders of the two, and kept
// a waiter polling while the writer was in its sleep set (an empty try is
// not a wait loop it holds back: dpor.cpp, "Wait loops").
const resource& activity() {
  static const resource& r = *new resource(object_kind::channel);
  return r;
}

namespace {

// What `fd` designates (st_mode 0 when fstat does not know it).
struct stat file_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) st.st_mode = 0;
  return st;
}

void wrote_to(const struct stat& st) {
  if (!ordering()) return;
  if (const resource* file = descriptors().of_file(st)) hb_release(*file);
  hb_release(descriptors().of_any());
}

void read_from(const struct stat& st) {
  if (!ordering()) return;
  const resource* file = descriptors().of_file(st);
  hb_acquire(file != nullptr ? *file : descriptors().of_any());
}

// A call that moves data through `fd` (`writes`: out of the program): when
// the program (not heddle) makes it under control, the point above before
// it unless `fd` is a regular file (always ready), then `call`, then the
// edge of happens-before if data moved.
template <class Call>
ssize_t moving(int fd, const void* caller, bool writes, Call call) {
  if (!controlled() || fd < 0 || runtime_code(reinterpret_cast<std::uintptr_t>(caller))) return call();
  const struct stat st = file_of(fd);
  if (!S_ISREG(st.st_mode)) scheduling_point(point_kind::write, activity(), {});
  const ssize_t n = call();
  if (writes && n >= 0) wrote_to(st);
  if (!writes && n > 0) read_from(st);
  return n;
}

void read_from_any() {
  if (ordering()) hb_acquire(descriptors().of_any());
}

struct waiting {
  operation_id me;
  explicit waiting(operation_id op) : me(op) {
    if (in_descriptor_wait.size() <= me) in_descriptor_wait.resize(me + 1);
    in_descriptor_wait[me] = true;
  }
  ~waiting() { in_descriptor_wait[me] = false; }
  waiting(const waiting&) = delete;
  waiting& operator=(const waiting&) = delete;
};

// `ask(timeout_ms)` makes the call with that timeout (0: never blocks, -1:
// no end); `timeout_ms` is the program's (negative: no end).
template <class Ask>
int wait_for_descriptors(Ask ask, std::int64_t timeout_ms) {
  const std::optional<virtual_time> deadline =
      timeout_ms < 0 ? std::nullopt
                     : std::optional(deadline_after(
                           {static_cast<time_t>(timeout_ms / 1000), static_cast<long>(timeout_ms % 1000) * 1'000'000}));
  const waiting mark(current_operation());
  for (;;) {
    scheduling_point(point_kind::read, activity(), {});
    const int ready = ask(0);
    if (ready != 0 || timeout_ms == 0) return ready;
    if (deadline && now() >= *deadline) return 0;
    std::optional<virtual_time> next = deadline;
    const others o = look_at_others(next);
    if (o == others::none && !deadline) {
      // Only the world outside can end it: the kernel's wait, as before.
      cancellation_point();
      return ask(-1);
    }
    signal_delivery_point();
    cancellation_point();
    sleep_until(o == others::can_run ? now() : *next, {});
  }
}

}  // namespace

std::int64_t millis(const timespec* t) {
  if (t == nullptr) return -1;
  return static_cast<std::int64_t>(t->tv_sec) * 1000 + (t->tv_nsec + 999'999) / 1'000'000;
}

int wait_on_poll(pollfd* fds, nfds_t count, int timeout) {
  const int ready = wait_for_descriptors([&](int t) { return HEDDLE_REAL(poll)(fds, count, t); }, timeout);
  for (nfds_t i = 0; ready > 0 && i < count; ++i)
    if (fds[i].revents != 0 && fds[i].fd >= 0) read_from(file_of(fds[i].fd));
  return ready;
}

int wait_on_select(int count, fd_set* read, fd_set* write, fd_set* except, std::int64_t timeout_ms) {
  // select overwrites its sets: each question starts from the caller's.
  fd_set asked[3];
  fd_set* sets[3] = {read, write, except};
  for (int i = 0; i < 3; ++i)
    if (sets[i] != nullptr) asked[i] = *sets[i];
  const int ready = wait_for_descriptors(
      [&](int t) {
        for (int i = 0; i < 3; ++i)
          if (sets[i] != nullptr) *sets[i] = asked[i];
        timespec wait{t / 1000, (t % 1000) * 1'000'000L};
        return HEDDLE_REAL(pselect)(count, read, write, except, t < 0 ? nullptr : &wait, nullptr);
      },
      timeout_ms);
  for (int fd = 0; ready > 0 && fd < count; ++fd)
    for (fd_set* set : sets)
      if (set != nullptr && FD_ISSET(fd, set)) read_from(file_of(fd));
  return ready;
}

int wait_on_epoll(int epfd, epoll_event* events, int max, int timeout) {
  const int ready = wait_for_descriptors([&](int t) { return HEDDLE_REAL(epoll_wait)(epfd, events, max, t); }, timeout);
  if (ready > 0) read_from_any();
  return ready;
}

}  // namespace heddle::rt

using heddle::rt::controlled;

HEDDLE_RT_DEFINE(int, ppoll, (struct pollfd * fds, nfds_t count, const timespec* timeout, const sigset_t* mask)) {
  if (!controlled() || count == 0 || mask != nullptr) return HEDDLE_REAL(ppoll)(fds, count, timeout, mask);
  if (timeout != nullptr && heddle::rt::invalid(*timeout)) {
    errno = EINVAL;
    return -1;
  }
  return heddle::rt::wait_on_poll(fds, count, static_cast<int>(heddle::rt::millis(timeout)));
}

HEDDLE_RT_DEFINE(int, epoll_wait, (int epfd, struct epoll_event* events, int max, int timeout)) {
  if (!controlled()) return HEDDLE_REAL(epoll_wait)(epfd, events, max, timeout);
  return heddle::rt::wait_on_epoll(epfd, events, max, timeout);
}

// With a signal mask the program means to be woken by a signal it unblocks
// for the wait: the kernel's call, as before (heddle's signals are not the
// kernel's while the iteration runs).
HEDDLE_RT_DEFINE(int, epoll_pwait, (int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask)) {
  if (!controlled() || mask != nullptr) return HEDDLE_REAL(epoll_pwait)(epfd, events, max, timeout, mask);
  return heddle::rt::wait_on_epoll(epfd, events, max, timeout);
}

HEDDLE_RT_DEFINE(int, pselect,
                 (int count, fd_set* read, fd_set* write, fd_set* except, const timespec* timeout,
                  const sigset_t* mask)) {
  if (!controlled() || count == 0 || mask != nullptr)
    return HEDDLE_REAL(pselect)(count, read, write, except, timeout, mask);
  if (timeout != nullptr && heddle::rt::invalid(*timeout)) {
    errno = EINVAL;
    return -1;
  }
  return heddle::rt::wait_on_select(count, read, write, except, heddle::rt::millis(timeout));
}

// The calls that move data through a descriptor: a scheduling point (above),
// the C library's call, then an edge of happens-before.
HEDDLE_RT_DEFINE(ssize_t, write, (int fd, const void* data, size_t size)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), true, [&] { return HEDDLE_REAL(write)(fd, data, size); });
}

HEDDLE_RT_DEFINE(ssize_t, writev, (int fd, const struct iovec* parts, int count)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), true, [&] { return HEDDLE_REAL(writev)(fd, parts, count); });
}

HEDDLE_RT_DEFINE(ssize_t, send, (int fd, const void* data, size_t size, int flags)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), true, [&] { return HEDDLE_REAL(send)(fd, data, size, flags); });
}

HEDDLE_RT_DEFINE(ssize_t, sendto,
                 (int fd, const void* data, size_t size, int flags, const struct sockaddr* to, socklen_t length)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), true, [&] { return HEDDLE_REAL(sendto)(fd, data, size, flags, to, length); });
}

HEDDLE_RT_DEFINE(ssize_t, sendmsg, (int fd, const struct msghdr* message, int flags)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), true, [&] { return HEDDLE_REAL(sendmsg)(fd, message, flags); });
}

HEDDLE_RT_DEFINE(ssize_t, read, (int fd, void* data, size_t size)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), false, [&] { return HEDDLE_REAL(read)(fd, data, size); });
}

HEDDLE_RT_DEFINE(ssize_t, readv, (int fd, const struct iovec* parts, int count)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), false, [&] { return HEDDLE_REAL(readv)(fd, parts, count); });
}

HEDDLE_RT_DEFINE(ssize_t, recv, (int fd, void* data, size_t size, int flags)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), false, [&] { return HEDDLE_REAL(recv)(fd, data, size, flags); });
}

HEDDLE_RT_DEFINE(ssize_t, recvfrom,
                 (int fd, void* data, size_t size, int flags, struct sockaddr* from, socklen_t* length)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), false, [&] { return HEDDLE_REAL(recvfrom)(fd, data, size, flags, from, length); });
}

HEDDLE_RT_DEFINE(ssize_t, recvmsg, (int fd, struct msghdr* message, int flags)) {
  return heddle::rt::moving(fd, __builtin_return_address(0), false, [&] { return HEDDLE_REAL(recvmsg)(fd, message, flags); });
}
