// See watchdog.hpp.
#include "rt/watchdog.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace heddle::rt {
namespace {

namespace fs = std::filesystem;

// The system calls a hung program is usually blocked in.
std::string syscall_name(long number) {
  static const std::map<long, const char*> names = {
      {SYS_read, "read"},         {SYS_write, "write"},           {SYS_poll, "poll"},
      {SYS_select, "select"},     {SYS_pause, "pause"},           {SYS_nanosleep, "nanosleep"},
      {SYS_accept, "accept"},     {SYS_accept4, "accept4"},       {SYS_recvfrom, "recvfrom"},
      {SYS_recvmsg, "recvmsg"},   {SYS_sendto, "sendto"},         {SYS_connect, "connect"},
      {SYS_wait4, "wait4"},       {SYS_futex, "futex"},           {SYS_clock_nanosleep, "clock_nanosleep"},
      {SYS_epoll_wait, "epoll_wait"}, {SYS_epoll_pwait, "epoll_pwait"}, {SYS_pselect6, "pselect6"},
      {SYS_ppoll, "ppoll"},       {SYS_pread64, "pread64"},       {SYS_readv, "readv"},
      {SYS_flock, "flock"},       {SYS_fcntl, "fcntl"},           {SYS_rt_sigtimedwait, "sigtimedwait"},
      {SYS_rt_sigsuspend, "sigsuspend"}, {SYS_msgrcv, "msgrcv"},  {SYS_semop, "semop"},
  };
  const auto it = names.find(number);
  return it != names.end() ? fmt::format("{}()", it->second) : fmt::format("system call {}", number);
}

std::string first_line_of(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string where_text(const std::source_location& w) {
  if (w.line() == 0) return {};
  const std::string_view file = w.file_name();
  const auto slash = file.rfind('/');
  return fmt::format(" ({}:{})", slash == std::string_view::npos ? file : file.substr(slash + 1), w.line());
}

std::string operation_name(const fork_channel& ch, operation_id op) {
  const char* name = ch.operations[op].name;
  return *name != '\0' ? fmt::format("operation {} ({})", op, name) : fmt::format("operation {}", op);
}

}  // namespace

// "futex() (FUTEX_WAIT on 0x7f...)": the futex call of a /proc syscall line
// ("202 0xaddr 0x80 ..."), whose operation the program chose.
std::string futex_call(const std::string& syscall_line) {
  std::istringstream fields(syscall_line);
  long number = 0;
  std::string address, op;
  fields >> number >> address >> op;
  static const char* const names[] = {"FUTEX_WAIT",        "FUTEX_WAKE",        "FUTEX_FD",
                                      "FUTEX_REQUEUE",     "FUTEX_CMP_REQUEUE", "FUTEX_WAKE_OP",
                                      "FUTEX_LOCK_PI",     "FUTEX_UNLOCK_PI",   "FUTEX_TRYLOCK_PI",
                                      "FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
                                      "FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2"};
  const unsigned long command = std::strtoul(op.c_str(), nullptr, 16) & 127;
  if (op.empty()) return "futex()";
  const std::string name = command < std::size(names) ? names[command] : fmt::format("operation {}", command);
  return fmt::format("futex() ({} on {})", name, address);
}

std::string describe_threads(pid_t pid, const fork_channel& ch, operation_id running, const std::string& who_runs) {
  const long running_tid =
      running != 0 && running < ch.operations_mirrored && running < max_operations ? ch.operations[running].tid : 0;
  std::string first;  // what the running operation does
  std::string text;
  const char* separator = "";
  std::error_code ec;
  std::vector<fs::path> tasks;
  for (const auto& entry : fs::directory_iterator(fmt::format("/proc/{}/task", pid), ec)) tasks.push_back(entry.path());
  const auto mirrored = [&](long tid) {
    for (operation_id op = 1; op < ch.operations_mirrored && op < max_operations; ++op)
      if (ch.operations[op].tid == tid) return true;
    return false;
  };
  for (const fs::path& task : tasks) {
    const std::string syscall = first_line_of(task / "syscall");
    if (syscall.empty()) continue;
    const long tid = std::strtol(task.filename().c_str(), nullptr, 10);
    const bool is_running = syscall == "running";
    const long number = is_running ? -1 : std::strtol(syscall.c_str(), nullptr, 10);
    const std::string call = number == SYS_futex ? futex_call(syscall) : syscall_name(number);
    // The running operation's thread, also before the child mirrored it: the
    // only thread (fibers), or the one no operation is known to run on that
    // heddle has not parked.
    const bool runs_it = tid == running_tid ||
                         (running_tid == 0 && running != 0 &&
                          (tasks.size() == 1 || (!mirrored(tid) && number != SYS_futex)));
    if (runs_it && first.empty()) {
      // The running operation's thread is never parked by heddle: a futex
      // call there is the program's own (one heddle does not model).
      first = is_running ? who_runs + " is running without reaching a scheduling point (a loop, or a spin on atomics heddle does not "
                                   "see: inline assembly, an uninstrumented library's)"
                         : fmt::format("{} is blocked in {}", who_runs, call);
      // A futex call heddle never saw blocks the only thread that may run:
      // say why, rather than leave it to look like the program's hang.
      if (number == SYS_futex)
        first += " (a futex call heddle does not model: made with the program's or a library's own system call "
                 "instruction, not through syscall(); heddle traps only libgomp's)";
      continue;
    }
    if (number == SYS_futex) continue;  // parked by heddle, or a lock: the points below say more
    std::string who = "a thread heddle does not control";
    for (operation_id op = 1; op < ch.operations_mirrored && op < max_operations; ++op)
      if (ch.operations[op].tid == tid) who = operation_name(ch, op);
    text += separator;
    separator = "; ";
    text += is_running ? who + " is running without reaching a scheduling point (a loop, or a spin on atomics heddle does not "
                                   "see: inline assembly, an uninstrumented library's)"
                       : fmt::format("{} is blocked in {}", who, call);
  }
  for (operation_id op = 1; op < ch.operations_mirrored && op < max_operations; ++op) {
    const operation_mirror& m = ch.operations[op];
    if (m.status != static_cast<std::uint8_t>(detail::op_status::blocked)) continue;
    text += separator;
    separator = "; ";
    text += fmt::format("{} waits at {}{}", operation_name(ch, op), to_string(m.point), where_text(m.where));
  }
  if (first.empty()) first = who_runs + " was running and did not reach a scheduling point";
  return text.empty() ? first : first + "; " + text;
}

}  // namespace heddle::rt
