// See watchdog.hpp.
#include "rt/watchdog.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

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

std::string describe_threads(pid_t pid, const fork_channel& ch) {
  std::string text;
  const char* separator = "";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fmt::format("/proc/{}/task", pid), ec)) {
    const std::string syscall = first_line_of(entry.path() / "syscall");
    if (syscall.empty()) continue;
    const long tid = std::strtol(entry.path().filename().c_str(), nullptr, 10);
    const bool running = syscall == "running";
    const long number = running ? -1 : std::strtol(syscall.c_str(), nullptr, 10);
    if (number == SYS_futex) continue;  // parked by heddle, or a lock: the points below say more
    std::string who = "a thread heddle does not control";
    for (operation_id op = 1; op < ch.operations_mirrored && op < max_operations; ++op)
      if (ch.operations[op].tid == tid) who = operation_name(ch, op);
    text += separator;
    separator = "; ";
    text += running ? who + " is running without reaching a scheduling point (a loop?)"
                    : fmt::format("{} is blocked in {}", who, syscall_name(number));
  }
  for (operation_id op = 1; op < ch.operations_mirrored && op < max_operations; ++op) {
    const operation_mirror& m = ch.operations[op];
    if (m.status != static_cast<std::uint8_t>(detail::op_status::blocked)) continue;
    text += separator;
    separator = "; ";
    text += fmt::format("{} waits at {}{}", operation_name(ch, op), to_string(m.point), where_text(m.where));
  }
  return text;
}

}  // namespace heddle::rt
